//! `lsp --connect`: the language server as a thin client of a running daemon, so editors and
//! builds share one analysis. It subscribes to the daemon for the workspace and republishes
//! each file's findings as `textDocument/publishDiagnostics` (chains as related information).
//! It analyses nothing itself: findings follow what is saved, not unsaved edits; hovers,
//! completion and the other features are the in-process server's (`lsp` without
//! `--connect`). If the daemon goes away, the editor is told and the server connects again.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use async_lsp::client_monitor::ClientProcessMonitorLayer;
use async_lsp::concurrency::ConcurrencyLayer;
use async_lsp::lsp_types::{self as lsp, notification, request, Url};
use async_lsp::panic::CatchUnwindLayer;
use async_lsp::router::Router;
use async_lsp::server::LifecycleLayer;
use async_lsp::{ClientSocket, LanguageClient};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceBuilder;

use super::convert;
use crate::diagnostics::Diagnostic;
use crate::text::{Encoding, LineIndex};

struct State {
    client: ClientSocket,
    socket: PathBuf,
    root: Option<PathBuf>,
    targets: Option<String>,
}

/// How long to wait before connecting again to a daemon that went away.
const RETRY: Duration = Duration::from_secs(2);

pub fn run_stdio(socket: &Path) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let socket = socket.to_path_buf();
    runtime.block_on(async move {
        let (mainloop, _) = async_lsp::MainLoop::new_server(|client| {
            let mut router = Router::new(State {
                client: client.clone(),
                socket,
                root: None,
                targets: None,
            });
            router
                .request::<request::Initialize, _>(|st, params| {
                    let result = initialize(st, params);
                    async move { Ok(result) }
                })
                .request::<request::Shutdown, _>(|_, _| async { Ok(()) })
                .notification::<notification::Initialized>(|st, _| {
                    let (client, socket, root) =
                        (st.client.clone(), st.socket.clone(), st.root.clone());
                    tokio::spawn(follow(client, socket, root, st.targets.clone()));
                    ControlFlow::Continue(())
                })
                .notification::<notification::Exit>(|_, _| ControlFlow::Break(Ok(())))
                .unhandled_notification(|_, _| ControlFlow::Continue(()));
            ServiceBuilder::new()
                .layer(LifecycleLayer::default())
                .layer(CatchUnwindLayer::default())
                .layer(ConcurrencyLayer::default())
                .layer(ClientProcessMonitorLayer::new(client))
                .service(router)
        });
        let (stdin, stdout) = (
            async_lsp::stdio::PipeStdin::lock_tokio().map_err(|e| e.to_string())?,
            async_lsp::stdio::PipeStdout::lock_tokio().map_err(|e| e.to_string())?,
        );
        mainloop
            .run_buffered(stdin, stdout)
            .await
            .map_err(|e| e.to_string())
    })
}

fn initialize(st: &mut State, params: lsp::InitializeParams) -> lsp::InitializeResult {
    #[allow(deprecated)]
    let root_uri = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| f.uri.clone())
        .or(params.root_uri);
    st.root = root_uri.and_then(|u| u.to_file_path().ok());
    st.targets = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("targets"))
        .and_then(|t| match t {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Array(a) if !a.is_empty() => Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            _ => None,
        });
    lsp::InitializeResult {
        capabilities: lsp::ServerCapabilities {
            text_document_sync: Some(lsp::TextDocumentSyncCapability::Kind(
                lsp::TextDocumentSyncKind::NONE,
            )),
            ..Default::default()
        },
        server_info: Some(lsp::ServerInfo {
            name: "sycl-analyzer (connected to a daemon)".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    }
}

/// Subscribes for the workspace and republishes, connecting again whenever the daemon goes
/// away (with a message to the user the first time).
async fn follow(
    mut client: ClientSocket,
    socket: PathBuf,
    root: Option<PathBuf>,
    targets: Option<String>,
) {
    let mut told = false;
    loop {
        let e = subscribe(&mut client, &socket, root.as_deref(), targets.as_deref()).await;
        if let Err(e) = e {
            tracing::warn!("{e}");
            if !told {
                told = true;
                let _ = client.show_message(lsp::ShowMessageParams {
                    typ: lsp::MessageType::WARNING,
                    message: format!("sycl-analyzer: {e}; connecting again every 2 s"),
                });
            }
        }
        tokio::time::sleep(RETRY).await;
    }
}

async fn subscribe(
    client: &mut ClientSocket,
    socket: &Path,
    root: Option<&Path>,
    targets: Option<&str>,
) -> Result<(), String> {
    let stream = tokio::net::UnixStream::connect(socket).await.map_err(|e| {
        format!(
            "cannot connect to the daemon at '{}': {e}",
            socket.display()
        )
    })?;
    let (read, mut write) = stream.into_split();
    let mut params = json!({});
    if let Some(root) = root {
        params["paths"] = json!([root.display().to_string()]);
    }
    if let Some(t) = targets {
        params["targets"] = json!(t);
    }
    let req = json!({ "jsonrpc": "2.0", "id": 1, "method": "sycl/subscribe", "params": params });
    write
        .write_all(format!("{req}\n").as_bytes())
        .await
        .map_err(|e| format!("the daemon did not take the subscription: {e}"))?;
    let mut lines = BufReader::new(read).lines();
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(e) = message.get("error") {
            return Err(format!(
                "the daemon refused: {}",
                e["message"].as_str().unwrap_or_default()
            ));
        }
        let p = &message["params"];
        match message["method"].as_str() {
            Some("sycl/publishDiagnostics") => {
                if let Some(n) = to_lsp(p) {
                    let _ = client.publish_diagnostics(n);
                }
            }
            Some("sycl/subscriptionError") => {
                let _ = client.show_message(lsp::ShowMessageParams {
                    typ: lsp::MessageType::ERROR,
                    message: format!(
                        "sycl-analyzer daemon: {}",
                        p["message"].as_str().unwrap_or_default()
                    ),
                });
            }
            _ => {}
        }
    }
    Err("the daemon closed the connection".into())
}

/// A daemon's `sycl/publishDiagnostics` as the LSP's: positions in UTF-16 (the default
/// encoding), read from each file's text; chain steps as related information.
fn to_lsp(p: &Value) -> Option<lsp::PublishDiagnosticsParams> {
    let uri = Url::parse(p["uri"].as_str()?).ok()?;
    let file = uri.to_file_path().ok()?;
    // The daemon names files relative to its root: the URI is the root joined to `path`.
    let relative = p["path"].as_str()?;
    let root = file
        .to_str()?
        .strip_suffix(relative)
        .map(PathBuf::from)
        .unwrap_or_default();
    let found: Vec<Diagnostic> = serde_json::from_value(p["diagnostics"].clone()).ok()?;
    let mut texts = crate::workspace::SourceTexts::under(&root);
    let mut text_of = |f: &str| texts.get(f);
    let diagnostics = found
        .into_iter()
        .filter_map(|mut d| {
            d.locate(&mut text_of);
            // Related locations need absolute paths.
            for step in &mut d.chain {
                step.file = root.join(&*step.file).display().to_string().into();
            }
            d.file = root.join(&*d.file).display().to_string().into();
            convert::diagnostic(&d, |f, r| {
                let rel = Path::new(f).strip_prefix(&root).ok()?.to_str()?.to_string();
                let text = text_of(&rel)?;
                Some(convert::range(
                    &text,
                    &LineIndex::new(&text),
                    r,
                    Encoding::Utf16,
                ))
            })
        })
        .collect();
    Some(lsp::PublishDiagnosticsParams {
        uri,
        diagnostics,
        version: None,
    })
}
