//! The gRPC exporters on a tokio runtime of their own.
//!
//! The SDK's batch span processor and periodic metric reader export from plain threads of
//! their own, polling the exporter's future with a minimal executor. tonic's channel needs a
//! tokio reactor and timers (for the connection, the request's deadline and the retry's
//! back-off), so each export is run through a handle of a small runtime the pipeline owns:
//! not the program's, which may be shut down before the last flush, and which a library user
//! may not have.

use std::time::Duration;

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use tokio::runtime::Handle;

/// An exporter whose exports run on `runtime`.
#[derive(Debug)]
pub(super) struct OnRuntime<E> {
    pub(super) inner: E,
    pub(super) runtime: Handle,
}

// `Handle::block_on` from the SDK's export threads, which are outside any runtime: the
// future is polled there, its I/O and timers are driven by the runtime's worker.
impl<E: SpanExporter> SpanExporter for OnRuntime<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.runtime.block_on(self.inner.export(batch))
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

impl<E: PushMetricExporter> PushMetricExporter for OnRuntime<E> {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        self.runtime.block_on(self.inner.export(metrics))
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn temporality(&self) -> Temporality {
        self.inner.temporality()
    }
}
