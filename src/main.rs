fn main() {
    std::process::exit(sycl_analyzer::cli::main());
}
