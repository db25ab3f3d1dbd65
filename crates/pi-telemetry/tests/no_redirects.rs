//! The OTLP exporter follows no redirect: a collector that answers `307` to another host has
//! nothing sent there (the spans could hold prompts and tool output).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use pi_telemetry::export::{ExportSettings, Protocol, install};

/// A collector on 127.0.0.1 answering every request with `answer(its path)`; the receiver
/// gets each request's path.
fn collector(answer: impl Fn(&str) -> String + Send + 'static) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (paths, received) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split(' ').nth(1).unwrap_or_default().to_owned();
            let mut length = 0;
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap();
                }
            }
            reader
                .by_ref()
                .take(length)
                .read_to_end(&mut Vec::new())
                .unwrap();
            reader
                .get_mut()
                .write_all(answer(&path).as_bytes())
                .unwrap();
            if paths.send(path).is_err() {
                break;
            }
        }
    });
    (url, received)
}

#[test]
fn a_redirect_to_another_host_is_not_followed() {
    let (target, target_got) = collector(|_| {
        "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\
         connection: close\r\n\r\n"
            .to_owned()
    });
    let (redirector, redirector_got) = collector(move |path| {
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: {target}{path}\r\ncontent-length: 0\r\n\
             connection: close\r\n\r\n"
        )
    });
    let telemetry = install(&ExportSettings {
        endpoint: redirector,
        protocol: Protocol::HttpProtobuf,
    })
    .unwrap();
    drop(pi_telemetry::spans::invoke_agent("agent", "faux", None).entered());
    pi_telemetry::metrics::record_tool(pi_telemetry::metrics::start(), "echo", None);
    telemetry.shutdown();

    let mut asked: Vec<String> = redirector_got.try_iter().collect();
    asked.sort();
    asked.dedup();
    assert_eq!(asked, ["/v1/metrics", "/v1/traces"], "both signals tried");
    let followed: Vec<String> = target_got.try_iter().collect();
    assert!(
        followed.is_empty(),
        "the redirect was followed: {followed:?}"
    );
}
