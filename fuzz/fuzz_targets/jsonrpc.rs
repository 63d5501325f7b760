//! The daemon's framing and dispatch on arbitrary bytes, fed in uneven chunks: every frame is
//! read, every request answered without a panic.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sycl_analyzer::server::daemon::{parse_request, CappedLines, Frame};
use sycl_analyzer::server::{handle, Snapshot};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

fn snapshot() -> &'static Snapshot {
    static S: OnceLock<Snapshot> = OnceLock::new();
    S.get_or_init(|| {
        // An empty root: `sycl/checkFile` may look, but finds nothing to read.
        let root = std::env::temp_dir().join("sycl-analyzer-fuzz-root");
        let _ = std::fs::create_dir_all(&root);
        Snapshot::load(vec![root], Vec::new()).0
    })
}

fn serve(frame: Frame) {
    let Frame::Line(line) = frame else { return };
    if let Ok(req) = parse_request(&line) {
        if req.method == "shutdown" {
            return;
        }
        let outcome = handle(snapshot(), &req.method, &req.params);
        if let Ok(v) = &outcome.result {
            let _ = v.to_string();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut codec = CappedLines::default();
    let mut buf = BytesMut::new();
    let step = 1 + data.first().map_or(0, |&b| b as usize % 61);
    for chunk in data.chunks(step) {
        buf.extend_from_slice(chunk);
        while let Some(frame) = codec.decode(&mut buf).expect("framing never fails") {
            serve(frame);
        }
    }
    while let Some(frame) = codec.decode_eof(&mut buf).expect("framing never fails") {
        serve(frame);
    }
});
