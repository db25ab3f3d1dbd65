//! The OTLP pipeline: off unless asked for, on with `OTEL_EXPORTER_OTLP_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_PROTOCOL` (or the CLI's `--otlp URL` / `--otlp-protocol`), over
//! HTTP/protobuf or gRPC. Spans go through a batch processor on its own thread, so ending a
//! span never waits for the network; a collector that cannot be reached costs one warning.
//!
//! The SDK reads `OTEL_SERVICE_NAME` (the resource) and `OTEL_TRACES_SAMPLER` /
//! `OTEL_TRACES_SAMPLER_ARG` (the sampler) itself. Build and shut down outside any tokio
//! runtime: the HTTP exporter's blocking client owns one of its own, and so does the pipeline
//! for gRPC ([`on_runtime`]).

mod no_redirects;
mod on_runtime;
mod settings;

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{RetryPolicy, WithExportConfig, WithHttpConfig, WithTonicConfig};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

use no_redirects::NoRedirects;
use on_runtime::OnRuntime;
pub use settings::{ExportSettings, Protocol};

/// Why the pipeline could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// `OTEL_EXPORTER_OTLP_PROTOCOL` names a protocol this build does not speak.
    #[error("OTEL_EXPORTER_OTLP_PROTOCOL={0} is not supported (use http/protobuf or grpc)")]
    Protocol(String),
    /// The OTLP exporter could not be built.
    #[error("cannot build the OTLP exporter")]
    Build(#[from] opentelemetry_otlp::ExporterBuildError),
    /// The HTTP exporter's client could not be built.
    #[error("cannot build the OTLP exporter's HTTP client: {0}")]
    Client(String),
    /// The gRPC exporter's runtime could not be started.
    #[error("cannot start the gRPC exporter's runtime")]
    Runtime(#[source] std::io::Error),
    /// Another global `tracing` subscriber is already installed.
    #[error("a tracing subscriber is already installed")]
    Subscriber(#[from] tracing::subscriber::SetGlobalDefaultError),
}

/// The running pipeline; [`Telemetry::shutdown`] flushes it.
#[derive(Debug)]
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    // gRPC's runtime, only kept alive; last, so it is dropped after the providers it serves
    // (a provider flushes when dropped).
    _runtime: Option<tokio::runtime::Runtime>,
}

/// Installs the pipeline: a global `tracing` subscriber that sends our spans (target
/// [`crate::spans::TARGET`]) to the batch exporter, and the metrics on a periodic reader.
pub fn install(settings: &ExportSettings) -> Result<Telemetry, ExportError> {
    // One warning in all, whichever part fails first.
    let warned = Arc::new(AtomicBool::new(false));
    let (tracer_provider, meter_provider, runtime) = match settings.protocol {
        Protocol::HttpProtobuf => {
            let client = |signal| {
                NoRedirects::new(
                    settings::export_timeout(signal),
                    &settings.endpoint,
                    Arc::clone(&warned),
                )
            };
            let spans = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_http_client(client("TRACES")?)
                .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
                .with_endpoint(settings.signal_url("traces"))
                .with_retry_policy(retry_policy())
                .build()?;
            let metrics = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_http_client(client("METRICS")?)
                .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
                .with_endpoint(settings.signal_url("metrics"))
                .with_retry_policy(retry_policy())
                .build()?;
            let spans = WarnOnce::new(spans, &settings.endpoint, Arc::clone(&warned));
            let (tracer, meter) = providers(spans, metrics);
            (tracer, meter, None)
        }
        Protocol::Grpc => {
            // One worker: it drives the channels' connections; the exports themselves are
            // polled on the SDK's threads.
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("pi-otlp-grpc")
                .enable_all()
                .build()
                .map_err(ExportError::Runtime)?;
            // tonic spawns each channel's worker on the current runtime.
            let entered = runtime.enter();
            let spans = opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_endpoint(settings.signal_url("traces"))
                .with_retry_policy(retry_policy())
                .build()?;
            let metrics = opentelemetry_otlp::MetricExporter::builder()
                .with_tonic()
                .with_endpoint(settings.signal_url("metrics"))
                .with_retry_policy(retry_policy())
                .build()?;
            drop(entered);
            let spans = OnRuntime {
                inner: spans,
                runtime: runtime.handle().clone(),
            };
            let metrics = OnRuntime {
                inner: metrics,
                runtime: runtime.handle().clone(),
            };
            let spans = WarnOnce::new(spans, &settings.endpoint, warned);
            let (tracer, meter) = providers(spans, metrics);
            (tracer, meter, Some(runtime))
        }
    };
    crate::metrics::install(&meter_provider.meter("pi-tool"));
    let layer = crate::bridge::layer(tracer_provider.tracer("pi-tool"))
        .with_filter(Targets::new().with_target(crate::spans::TARGET, tracing::Level::INFO));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))?;
    Ok(Telemetry {
        tracer_provider,
        meter_provider,
        _runtime: runtime,
    })
}

/// How a failed export is retried: twice, after about 50 and 100 ms. The SDK's recommended
/// policy (three retries, 100 ms doubling to 1.6 s) suits a long-lived service; here every run
/// ends by flushing both signals, and with no collector listening that policy kept each
/// `pi-tool` run alive ~1.7 s past its end.
fn retry_policy() -> RetryPolicy {
    RetryPolicy::default()
        .with_max_retries(2)
        .with_initial_delay(Duration::from_millis(50))
        .with_max_delay(Duration::from_millis(200))
        .with_max_jitter(Duration::from_millis(20))
}

/// The batch span processor and the periodic metric reader over the two exporters.
fn providers(
    spans: impl SpanExporter + 'static,
    metrics: impl PushMetricExporter,
) -> (SdkTracerProvider, SdkMeterProvider) {
    let tracer_provider = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .build();
    let meter_provider = SdkMeterProvider::builder()
        .with_periodic_exporter(metrics)
        .build();
    (tracer_provider, meter_provider)
}

impl Telemetry {
    /// Exports what is still buffered and stops the pipeline; failures were already warned
    /// about by the exporter.
    pub fn shutdown(&self) {
        // The two flushes are independent: side by side, the slower one is all the wait.
        let metrics = || {
            let _ = self
                .meter_provider
                .shutdown_with_timeout(Duration::from_secs(5));
        };
        std::thread::scope(|scope| {
            let helper = std::thread::Builder::new()
                .name("pi-otlp-shutdown".to_owned())
                .spawn_scoped(scope, metrics);
            let _ = self
                .tracer_provider
                .shutdown_with_timeout(Duration::from_secs(5));
            // No thread to be had: flush the metrics here, after the traces.
            if helper.is_err() {
                metrics();
            }
        });
    }
}

/// The span exporter, with one warning on stderr for the first failed export.
#[derive(Debug)]
struct WarnOnce<E> {
    inner: E,
    endpoint: String,
    /// Set by whichever warning comes first: the HTTP client's about a redirect, or this one.
    warned: Arc<AtomicBool>,
}

impl<E> WarnOnce<E> {
    fn new(inner: E, endpoint: &str, warned: Arc<AtomicBool>) -> Self {
        Self {
            inner,
            endpoint: endpoint.to_owned(),
            warned,
        }
    }
}

impl<E: SpanExporter> SpanExporter for WarnOnce<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(error) = &result
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            // Not `eprintln!`, which panics when stderr is a closed pipe.
            let _ = writeln!(
                std::io::stderr(),
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
