//! Generators of models: random, well-formed programs for differential testing
//! (`zingrs gen random-bp SEED`, `zingrs gen random-zing SEED`, `zingrs gen random-spawn-bp
//! SEED`: threads created in a loop), and the scalable benchmark
//! families of benchmarks.md ([`families`]: `zingrs gen bebop-t N`, ...), among them the
//! concurrent Getafix-layout ones ([`concurrent`]: `fib-bp N`, `bluetooth-bp A S`).
//!
//! Everything here is deterministic in its seed: the same seed always gives the same text, so a
//! failure found by the differential test can be replayed from the command line.

pub mod concurrent;
pub mod families;
pub mod random_bp;
pub mod random_zing;
pub mod spawn_loop;

pub use random_bp::random_bp;
pub use random_zing::random_zing;
pub use spawn_loop::random_spawn_bp;

/// A tiny deterministic pseudo-random generator (splitmix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose whole output is determined by `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` must be positive).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `pct`/100.
    pub fn chance(&mut self, pct: u32) -> bool {
        self.below(100) < pct as usize
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn deterministic_and_spread() {
        let a: Vec<u64> = (0..8).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut r = Rng::new(1);
        let mut seen = [0u32; 4];
        for _ in 0..4000 {
            seen[r.below(4)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
    }
}
