//! Swarm runs (SPIN's swarm verification, ZING's `-randomsample`): what makes one run of a
//! swarm differ from another. `check --seed S` permutes the order in which the explicit
//! search tries a node's successors and salts its fingerprints; `check --search random`
//! takes random walks instead of a search (`explore::random`).
//!
//! The permutations come from a small generator of our own (splitmix64: one 64-bit state, a
//! golden-ratio increment and a mixing finalizer), so that a seed means the same order on
//! every platform and in every version of the dependencies.

/// The swarm settings of one search ([`crate::explore::ExplicitOptions::swarm`]). The default is today's
/// search: no permutation, no salt, no random walks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swarm {
    /// `--seed S`: the seed of the successor order and the fingerprint salt (`None`: the
    /// search's own order, unsalted fingerprints).
    pub seed: Option<u64>,
    /// `--search random`: random walks from the initial state instead of a search.
    pub random: bool,
}

/// The seed of `--search random` when none is given, so that two runs without `--seed` take
/// the same walks (a fresh one each run: `--seed $RANDOM`, or `--seed $(date +%s%N)`).
pub const DEFAULT_RANDOM_SEED: u64 = 0x5EED;

/// The steps a random search takes in all when neither `--max-states` nor `--timeout` ends
/// it sooner (a random search never ends by itself).
pub const DEFAULT_RANDOM_STEPS: u64 = 10_000_000;

impl Swarm {
    /// The fingerprint salt of this run: 0 (the fingerprints of a search without `--seed`)
    /// unless a seed is given.
    pub fn salt(&self) -> u64 {
        self.seed.map_or(0, |s| mix(s ^ 0x5A17_5A17_5A17_5A17) | 1)
    }

    /// The generator of a node's successor order under `--seed`: a function of the seed and
    /// of what identifies the node in the search (so a node rebuilt after its outcomes were
    /// dropped gets the same order again), or `None` without a seed.
    pub fn order(&self, node: &[u64]) -> Option<Rng> {
        node_order(self.seed, node)
    }
}

/// [`Swarm::order`] for any seed of a successor order: `--seed`'s, or the one a worker of a
/// parallel search takes so that it does not search where the others do.
pub fn node_order(seed: Option<u64>, node: &[u64]) -> Option<Rng> {
    let seed = seed?;
    let h = node.iter().fold(mix(seed), |h, &x| mix(h ^ x));
    Some(Rng::new(h))
}

/// The splitmix64 finalizer: every input bit moves about half the output bits.
#[inline]
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A splitmix64 generator (Steele, Lea, Flood, OOPSLA 2014): fast, 64 bits of state, good
/// enough to choose successors; not for cryptography.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0), uniform up to a bias below n / 2^64 (Lemire's
    /// multiply-shift, without the rejection step).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Shuffles `v` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }

    /// A permutation of `0..n`, as [`Rng::shuffle`] orders it.
    pub fn permutation(&mut self, n: usize) -> Vec<u32> {
        let mut p: Vec<u32> = (0..n as u32).collect();
        self.shuffle(&mut p);
        p
    }

    /// Shuffles `a` and `b` (of one length) alike, in place: the order [`Rng::shuffle`]
    /// gives either alone, without a permutation to allocate.
    pub fn shuffle_pair<A, B>(&mut self, a: &mut [A], b: &mut [B]) {
        debug_assert_eq!(a.len(), b.len());
        for i in (1..a.len()).rev() {
            let j = self.below(i + 1);
            a.swap(i, j);
            b.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_order_and_every_position_once() {
        let a = Swarm {
            seed: Some(7),
            random: false,
        };
        let p = a.order(&[1, 2]).unwrap().permutation(50);
        assert_eq!(p, a.order(&[1, 2]).unwrap().permutation(50));
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(p, a.order(&[1, 3]).unwrap().permutation(50));
        let b = Swarm {
            seed: Some(8),
            random: false,
        };
        assert_ne!(p, b.order(&[1, 2]).unwrap().permutation(50));
        assert!(Swarm::default().order(&[1]).is_none());
        assert_eq!(Swarm::default().salt(), 0);
        assert_ne!(a.salt(), b.salt());
    }

    #[test]
    fn a_pair_is_shuffled_as_its_permutation_orders_it() {
        let a = Swarm {
            seed: Some(7),
            random: false,
        };
        for n in [0, 1, 2, 5, 64] {
            let p = a.order(&[n]).unwrap().permutation(n as usize);
            let mut x: Vec<u64> = (0..n).map(|i| i * 10).collect();
            let mut y: Vec<u64> = (0..n).collect();
            a.order(&[n]).unwrap().shuffle_pair(&mut x, &mut y);
            let want: Vec<u64> = p.iter().map(|&i| u64::from(i)).collect();
            assert_eq!(y, want);
            assert_eq!(x, want.iter().map(|i| i * 10).collect::<Vec<_>>());
        }
    }

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut r = Rng::new(1);
        let mut seen = [false; 5];
        for _ in 0..200 {
            let k = r.below(5);
            seen[k] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
