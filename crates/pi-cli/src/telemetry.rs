//! Turning the OTLP export on: off by default, on with `--otlp URL` or the standard
//! `OTEL_EXPORTER_OTLP_*` variables. A pipeline that cannot be set up costs a warning.

use pi_telemetry::export::{self, ExportSettings, Protocol, Telemetry};

/// The running pipeline, when export was asked for and could be set up.
pub(crate) fn start(endpoint: Option<&str>, protocol: Option<Protocol>) -> Option<Telemetry> {
    let settings = match ExportSettings::from_env(endpoint, protocol) {
        Ok(settings) => settings?,
        Err(error) => {
            report!(
                "pi-tool: warning: no trace export: {}",
                pi_tool::error_text(&error)
            );
            return None;
        }
    };
    match export::install(&settings) {
        Ok(telemetry) => Some(telemetry),
        Err(error) => {
            report!(
                "pi-tool: warning: no trace export: {}",
                pi_tool::error_text(&error)
            );
            None
        }
    }
}
