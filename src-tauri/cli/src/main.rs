//! `carrel-cli`: Carrel's core without a window, for scripts, timers and tests.
fn main() {
    println!("carrel-cli {}", env!("CARGO_PKG_VERSION"));
}
