//! The OTLP pipeline: off unless asked for, on with `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
//! CLI's `--otlp URL`). Spans go through a batch processor on its own thread, so ending a span
//! never waits for the network; a collector that cannot be reached costs one warning.
//!
//! The SDK reads `OTEL_SERVICE_NAME` (the resource) and `OTEL_TRACES_SAMPLER` /
//! `OTEL_TRACES_SAMPLER_ARG` (the sampler) itself. Build and shut down outside any tokio
//! runtime: the HTTP exporter's blocking client owns one of its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

/// Why the pipeline could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// `OTEL_EXPORTER_OTLP_PROTOCOL` names a protocol this build does not speak.
    #[error("OTEL_EXPORTER_OTLP_PROTOCOL={0} is not supported (use http/protobuf)")]
    Protocol(String),
    /// The OTLP exporter could not be built.
    #[error("cannot build the OTLP exporter")]
    Build(#[from] opentelemetry_otlp::ExporterBuildError),
    /// Another global `tracing` subscriber is already installed.
    #[error("a tracing subscriber is already installed")]
    Subscriber(#[from] tracing::subscriber::SetGlobalDefaultError),
}

/// Where to export, read from the environment and the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSettings {
    /// The collector's base URL; `/v1/traces` and `/v1/metrics` are appended.
    pub endpoint: String,
}

impl ExportSettings {
    /// `Some` when `flag` (the CLI's `--otlp`) or `OTEL_EXPORTER_OTLP_ENDPOINT` names a
    /// collector and `OTEL_SDK_DISABLED` is not `true`; checks the protocol.
    pub fn from_env(flag: Option<&str>) -> Result<Option<Self>, ExportError> {
        let var = |name| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.trim().is_empty())
        };
        if var("OTEL_SDK_DISABLED").is_some_and(|value| value.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let Some(endpoint) = flag
            .map(str::to_owned)
            .or_else(|| var("OTEL_EXPORTER_OTLP_ENDPOINT"))
        else {
            return Ok(None);
        };
        match var("OTEL_EXPORTER_OTLP_PROTOCOL") {
            None => {}
            Some(protocol) if protocol == "http/protobuf" => {}
            Some(other) => return Err(ExportError::Protocol(other)),
        }
        Ok(Some(Self { endpoint }))
    }

    fn signal_url(&self, signal: &str) -> String {
        format!("{}/v1/{signal}", self.endpoint.trim_end_matches('/'))
    }
}

/// The running pipeline; [`Telemetry::shutdown`] flushes it.
#[derive(Debug)]
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

/// Installs the pipeline: a global `tracing` subscriber that sends our spans (target
/// [`crate::spans::TARGET`]) to the batch exporter, and the metrics on a periodic reader.
pub fn install(settings: &ExportSettings) -> Result<Telemetry, ExportError> {
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(settings.signal_url("traces"))
        .build()?;
    let warned = Arc::new(AtomicBool::new(false));
    let spans = WarnOnce {
        inner: spans,
        endpoint: settings.endpoint.clone(),
        warned: Arc::clone(&warned),
    };
    let tracer_provider = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .build();
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(settings.signal_url("metrics"))
        .build()?;
    let meter_provider = SdkMeterProvider::builder()
        .with_periodic_exporter(metrics)
        .build();
    crate::metrics::install(&meter_provider.meter("pi-tool"));
    let layer = crate::bridge::layer(tracer_provider.tracer("pi-tool"))
        .with_filter(Targets::new().with_target(crate::spans::TARGET, tracing::Level::INFO));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))?;
    Ok(Telemetry {
        tracer_provider,
        meter_provider,
    })
}

impl Telemetry {
    /// Exports what is still buffered and stops the pipeline; failures were already warned
    /// about by the exporter.
    pub fn shutdown(&self) {
        let _ = self
            .tracer_provider
            .shutdown_with_timeout(Duration::from_secs(5));
        let _ = self
            .meter_provider
            .shutdown_with_timeout(Duration::from_secs(5));
    }
}

/// The span exporter, with one warning on stderr for the first failed export.
#[derive(Debug)]
struct WarnOnce<E> {
    inner: E,
    endpoint: String,
    warned: Arc<AtomicBool>,
}

impl<E: SpanExporter> SpanExporter for WarnOnce<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(error) = &result
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            eprintln!(
                "pi-tool: warning: cannot export traces to {}: {error} (the run goes on)",
                self.endpoint
            );
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}
