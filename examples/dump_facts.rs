//! Prints the facts sycl-analyzer extracts from a C++ file: `cargo run --example dump_facts FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump_facts FILE");
    let text = std::fs::read_to_string(path).expect("readable UTF-8 file");
    println!("{:#?}", sycl_analyzer::syntax::extract(&text));
}
