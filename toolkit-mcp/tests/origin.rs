//! `serve_http` answers only its own loopback address and, from browsers, only its own origin:
//! a page elsewhere, or one reached through DNS rebinding, cannot call a tool.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolkit::{ToolContext, ToolLoopService};

/// Posts `initialize` with these extra headers; returns the status code.
fn initialize(address: SocketAddr, host: &str, origin: Option<&str>) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "origin-test", "version": "0"}}})
    .to_string();
    let mut stream = TcpStream::connect(address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let origin = origin.map_or_else(String::new, |origin| format!("Origin: {origin}\r\n"));
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("sent");
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).expect("a status line");
    let line = String::from_utf8_lossy(&head).into_owned();
    line[9..12].parse().expect("a status code")
}

#[test]
fn foreign_origins_and_hosts_are_refused_and_the_own_origin_and_plain_clients_pass() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let service = Arc::new(ToolLoopService::new(
        toolkit_builtins::registry().expect("no duplicates"),
    ));
    let (bound, address) = std::sync::mpsc::channel();
    runtime.spawn(toolkit_mcp::serve_http(
        service,
        ToolContext::new(),
        0,
        move |address| {
            let _ = bound.send(address);
        },
    ));
    let address = address
        .recv_timeout(Duration::from_secs(10))
        .expect("bound");
    let own = format!("127.0.0.1:{}", address.port());
    let attacks = [
        (own.clone(), Some("http://evil.example".to_owned())),
        (
            own.clone(),
            Some(format!("http://evil.example:{}", address.port())),
        ),
        (
            own.clone(),
            Some(format!("http://127.0.0.1:{}", address.port() ^ 1)),
        ),
        (own.clone(), Some("null".to_owned())),
        (format!("evil.example:{}", address.port()), None),
        (
            format!("evil.example:{}", address.port()),
            Some(format!("http://evil.example:{}", address.port())),
        ),
    ];
    let accepted: Vec<_> = attacks
        .iter()
        .filter(|(host, origin)| initialize(address, host, origin.as_deref()) < 400)
        .collect();
    assert_eq!(accepted, Vec::<&(String, Option<String>)>::new());
    assert_eq!(
        initialize(address, &own, Some(&format!("http://{own}"))),
        200
    );
    assert_eq!(initialize(address, &own, None), 200);
}
