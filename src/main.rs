//! The `zingrs` command: everything happens in `zingrs::cli`.

fn main() {
    std::process::exit(zingrs::cli::main());
}
