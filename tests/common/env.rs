//! Test sizes from the environment, so that a longer run needs no edit.

/// The number in variable `name`, or `default` when it is unset or not a number.
pub fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}
