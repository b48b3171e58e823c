//! The `zingrs` command: everything happens in `zingrs::cli`.

/// A model checker allocates and frees millions of small states; mimalloc does that markedly
/// faster than the system allocator (measured on bebop-t: see README, Performance).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(zingrs::cli::main());
}
