//! Whether to export, where to and over which protocol: the CLI's flags first, then the
//! standard `OTEL_EXPORTER_OTLP_*` variables, then the protocol's default endpoint.

use std::str::FromStr;
use std::time::Duration;

use super::ExportError;

/// The OTLP transport, as `OTEL_EXPORTER_OTLP_PROTOCOL` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// `http/protobuf`: one POST per batch to `{endpoint}/v1/traces` and `/v1/metrics`; the
    /// specification's default.
    #[default]
    HttpProtobuf,
    /// `grpc`: the collector's `TraceService` and `MetricsService` at the endpoint itself.
    Grpc,
}

impl Protocol {
    /// The name `OTEL_EXPORTER_OTLP_PROTOCOL` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::HttpProtobuf => "http/protobuf",
            Self::Grpc => "grpc",
        }
    }

    /// The collector the specification assumes when no endpoint is named: the two protocols
    /// listen on different ports.
    pub fn default_endpoint(self) -> &'static str {
        match self {
            Self::HttpProtobuf => "http://localhost:4318",
            Self::Grpc => "http://localhost:4317",
        }
    }
}

impl FromStr for Protocol {
    type Err = ExportError;

    fn from_str(name: &str) -> Result<Self, ExportError> {
        match name.trim() {
            "http/protobuf" => Ok(Self::HttpProtobuf),
            "grpc" => Ok(Self::Grpc),
            other => Err(ExportError::Protocol(other.to_owned())),
        }
    }
}

/// Where to export, read from the environment and the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSettings {
    /// The collector's base URL: over HTTP `/v1/traces` and `/v1/metrics` are appended, over
    /// gRPC it is the channel's address.
    pub endpoint: String,
    /// How the export travels.
    pub protocol: Protocol,
}

impl ExportSettings {
    /// `Some` when a collector or a protocol is named, by the CLI (`endpoint`: `--otlp`,
    /// `protocol`: `--otlp-protocol`) or by `OTEL_EXPORTER_OTLP_ENDPOINT` /
    /// `OTEL_EXPORTER_OTLP_PROTOCOL`, and `OTEL_SDK_DISABLED` is not `true`. A protocol named
    /// without an endpoint exports to the protocol's default endpoint.
    pub fn from_env(
        endpoint: Option<&str>,
        protocol: Option<Protocol>,
    ) -> Result<Option<Self>, ExportError> {
        Self::resolve(endpoint, protocol, |name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] over any source of variables.
    fn resolve(
        endpoint: Option<&str>,
        protocol: Option<Protocol>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, ExportError> {
        let var = |name| var(name).filter(|value| !value.trim().is_empty());
        if var("OTEL_SDK_DISABLED").is_some_and(|value| value.trim().eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let protocol = match protocol {
            Some(protocol) => Some(protocol),
            None => var("OTEL_EXPORTER_OTLP_PROTOCOL")
                .map(|name| name.parse())
                .transpose()?,
        };
        let endpoint = endpoint
            .map(str::to_owned)
            .or_else(|| var("OTEL_EXPORTER_OTLP_ENDPOINT"));
        if endpoint.is_none() && protocol.is_none() {
            return Ok(None);
        }
        let protocol = protocol.unwrap_or_default();
        Ok(Some(Self {
            endpoint: endpoint.unwrap_or_else(|| protocol.default_endpoint().to_owned()),
            protocol,
        }))
    }

    /// Where one signal (`traces`, `metrics`) goes.
    pub(super) fn signal_url(&self, signal: &str) -> String {
        match self.protocol {
            Protocol::HttpProtobuf => {
                format!("{}/v1/{signal}", self.endpoint.trim_end_matches('/'))
            }
            Protocol::Grpc => self.endpoint.clone(),
        }
    }
}

/// How long one export of `signal` (`TRACES`, `METRICS`) may take, read as the exporter reads
/// it: `OTEL_EXPORTER_OTLP_{SIGNAL}_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds),
/// else 10 s. The HTTP client is ours (it follows no redirects), so its time limit is too.
pub(super) fn export_timeout(signal: &str) -> Duration {
    resolve_timeout(signal, |name| std::env::var(name).ok())
}

/// [`export_timeout`] over any source of variables.
fn resolve_timeout(signal: &str, var: impl Fn(&str) -> Option<String>) -> Duration {
    [
        format!("OTEL_EXPORTER_OTLP_{signal}_TIMEOUT"),
        "OTEL_EXPORTER_OTLP_TIMEOUT".to_owned(),
    ]
    .iter()
    .find_map(|name| var(name)?.parse().ok())
    .map_or(Duration::from_secs(10), Duration::from_millis)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn resolve(
        endpoint: Option<&str>,
        protocol: Option<Protocol>,
        vars: &[(&str, &str)],
    ) -> Result<Option<ExportSettings>, ExportError> {
        ExportSettings::resolve(endpoint, protocol, |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    fn settings(endpoint: &str, protocol: Protocol) -> Option<ExportSettings> {
        Some(ExportSettings {
            endpoint: endpoint.to_owned(),
            protocol,
        })
    }

    #[test]
    fn off_unless_an_endpoint_or_a_protocol_is_named() {
        assert_eq!(resolve(None, None, &[]).unwrap(), None);
        assert_eq!(
            resolve(None, None, &[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]).unwrap(),
            None
        );
    }

    #[test]
    fn an_endpoint_alone_is_http_protobuf() {
        assert_eq!(
            resolve(Some("http://c:4318"), None, &[]).unwrap(),
            settings("http://c:4318", Protocol::HttpProtobuf)
        );
        assert_eq!(
            resolve(
                None,
                None,
                &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://e:4318")]
            )
            .unwrap(),
            settings("http://e:4318", Protocol::HttpProtobuf)
        );
    }

    #[test]
    fn a_protocol_alone_exports_to_its_default_endpoint() {
        assert_eq!(
            resolve(None, None, &[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]).unwrap(),
            settings("http://localhost:4317", Protocol::Grpc)
        );
        assert_eq!(
            resolve(None, Some(Protocol::HttpProtobuf), &[]).unwrap(),
            settings("http://localhost:4318", Protocol::HttpProtobuf)
        );
    }

    #[test]
    fn the_flags_win_over_the_variables() {
        let vars = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
        ];
        assert_eq!(
            resolve(Some("http://flag:4317"), Some(Protocol::Grpc), &vars).unwrap(),
            settings("http://flag:4317", Protocol::Grpc)
        );
        // A flag's protocol also wins over a variable this build cannot speak.
        let vars = [("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")];
        assert_eq!(
            resolve(Some("http://c:4317"), Some(Protocol::Grpc), &vars).unwrap(),
            settings("http://c:4317", Protocol::Grpc)
        );
    }

    #[test]
    fn an_unknown_protocol_is_refused() {
        let vars = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ];
        assert!(matches!(
            resolve(None, None, &vars),
            Err(ExportError::Protocol(name)) if name == "http/json"
        ));
    }

    #[test]
    fn disabled_wins_over_everything() {
        let vars = [
            ("OTEL_SDK_DISABLED", "TRUE"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ];
        assert_eq!(resolve(Some("http://c:4317"), None, &vars).unwrap(), None);
    }

    #[test]
    fn signal_urls_follow_the_protocol() {
        let http = settings("http://c:4318/", Protocol::HttpProtobuf).unwrap();
        assert_eq!(http.signal_url("traces"), "http://c:4318/v1/traces");
        let grpc = settings("http://c:4317", Protocol::Grpc).unwrap();
        assert_eq!(grpc.signal_url("metrics"), "http://c:4317");
    }

    #[test]
    fn the_time_limit_is_read_as_the_exporter_reads_it() {
        let vars = |pairs: &'static [(&str, &str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| (*value).to_owned())
            }
        };
        assert_eq!(
            resolve_timeout("TRACES", vars(&[])),
            Duration::from_secs(10)
        );
        const BOTH: &[(&str, &str)] = &[
            ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "250"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "4000"),
        ];
        assert_eq!(
            resolve_timeout("TRACES", vars(BOTH)),
            Duration::from_millis(250)
        );
        assert_eq!(
            resolve_timeout("METRICS", vars(BOTH)),
            Duration::from_millis(4000)
        );
        // Not a number: the next source, as the exporter does.
        const BAD: &[(&str, &str)] = &[("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "soon")];
        assert_eq!(
            resolve_timeout("TRACES", vars(BAD)),
            Duration::from_secs(10)
        );
    }
}
