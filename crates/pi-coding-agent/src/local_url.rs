//! Whether a base URL points at this machine (Ollama, llama.cpp, LM Studio, vLLM on
//! loopback): such a server takes no key, so a models.json provider there is usable without one.

/// Whether `url`'s host is `localhost` (or under it), a 127.x address, `::1` or `0.0.0.0`.
pub(crate) fn is_local_base_url(url: &str) -> bool {
    let Some(host) = url_host(url) else {
        return false;
    };
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host == "0.0.0.0"
        || is_ipv4_loopback(&host)
}

/// The host of `url`, lower-cased, without port or brackets; `None` without a scheme.
pub(crate) fn url_host(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_and_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if let Some(bracketed) = host_and_port.strip_prefix('[') {
        bracketed.split(']').next().unwrap_or_default()
    } else {
        host_and_port.split(':').next().unwrap_or_default()
    };
    Some(host.to_ascii_lowercase())
}

fn is_ipv4_loopback(host: &str) -> bool {
    host.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_local_and_others_are_not() {
        for url in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080/v1",
            "http://127.1.2.3",
            "http://[::1]:8080/v1",
            "http://0.0.0.0:8000",
            "https://LOCALHOST/v1",
            "http://user@llama.localhost:1",
        ] {
            assert!(is_local_base_url(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "http://localhost.example.com",
            "http://10.0.0.2:8080",
            "localhost:8080",
            "http://evil.com/?localhost",
        ] {
            assert!(!is_local_base_url(url), "{url}");
        }
    }
}
