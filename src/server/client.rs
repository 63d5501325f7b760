//! A blocking JSON-RPC client for `query ... --connect`: one request, one response.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::RpcError;

/// Calls `method` on the daemon at `socket`. `Err(Ok(e))` is the daemon's error, `Err(Err(s))`
/// a transport problem.
pub fn call(socket: &Path, method: &str, params: Value) -> Result<Value, Result<RpcError, String>> {
    let stream = UnixStream::connect(socket).map_err(|e| {
        Err(format!(
            "cannot connect to the daemon at '{}': {e}",
            socket.display()
        ))
    })?;
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| Err(e.to_string()))?;
    let mut writer = stream.try_clone().map_err(|e| Err(e.to_string()))?;
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    writeln!(writer, "{request}").map_err(|e| Err(format!("cannot send to the daemon: {e}")))?;
    let mut line = String::new();
    BufReader::new(stream)
        .read_line(&mut line)
        .map_err(|e| Err(format!("no answer from the daemon: {e}")))?;
    let response: Value = serde_json::from_str(&line)
        .map_err(|e| Err(format!("invalid answer from the daemon: {e}")))?;
    if let Some(e) = response.get("error") {
        return Err(Ok(RpcError {
            code: e["code"].as_i64().unwrap_or(0),
            message: e["message"].as_str().unwrap_or("").to_string(),
            data: e.get("data").cloned(),
        }));
    }
    Ok(response.get("result").cloned().unwrap_or(Value::Null))
}
