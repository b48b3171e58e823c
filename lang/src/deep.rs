//! Recursion over trees of any depth.
//!
//! Expressions nest as deep as their input: a 100,000-term XOR chain is a tree 100,000 levels
//! tall. Every recursive walk over expressions (parsing, lowering, liveness, evaluation,
//! symbolic encoding, printing) enters each level through [`grow`], which moves the walk onto
//! a fresh stack segment when the current one runs low, so depth is bounded by memory only.

/// Stack that must be left before a level recurses further: enough for the few frames between
/// two calls of [`grow`] in an unoptimised build.
const RED_ZONE: usize = 256 * 1024;

/// The size of each new stack segment.
const SEGMENT: usize = 8 * 1024 * 1024;

/// Runs `f`, on a new stack segment if less than `RED_ZONE` is left of the current one.
#[inline]
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Runs `f` with at least `bytes` of stack: for a walk that cannot enter [`grow`] at every
/// level (compiler-generated code such as dropping a tree), given its depth.
pub fn with_stack<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(
        bytes.saturating_add(RED_ZONE),
        bytes.saturating_add(SEGMENT),
        f,
    )
}
