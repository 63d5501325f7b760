//! Log events to the editor: the sink of `logging`'s forwarding layer, which the running language
//! server sets and which sends each event as `window/logMessage` (the editor's output channel) when `$/setTrace`
//! (or `initialize`'s `trace`) lets its level through: `off` errors and warnings, `messages`
//! info too, `verbose` everything the `SYCL_ANALYZER_LOG` filter passes.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use tracing::Level;

/// The most verbose level sent, by `$/setTrace`'s value: 1 warnings, 2 info, 3 everything.
pub(super) fn threshold(trace: Option<&str>) -> u8 {
    match trace {
        Some("verbose") => 3,
        Some("messages") => 2,
        _ => 1,
    }
}

/// Starts sending events to the editor, at `threshold`'s level.
pub(super) fn connect(client: async_lsp::ClientSocket, threshold: Arc<AtomicU8>) {
    use async_lsp::lsp_types::{notification, LogMessageParams, MessageType};
    let sink: crate::logging::Sink = Box::new(move |level, message| {
        let (rank, typ) = match level {
            Level::ERROR => (0, MessageType::ERROR),
            Level::WARN => (1, MessageType::WARNING),
            Level::INFO => (2, MessageType::INFO),
            _ => (3, MessageType::LOG),
        };
        if rank <= threshold.load(Ordering::Relaxed) {
            let _ = client.notify::<notification::LogMessage>(LogMessageParams { typ, message });
        }
    });
    crate::logging::set_sink(Some(sink));
}

/// Stops sending (the server exits).
pub(super) fn disconnect() {
    crate::logging::set_sink(None);
}
