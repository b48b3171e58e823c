//! The depth-first path's storage: a stack of fixed-size chunks. A path millions of nodes deep
//! never copies itself to grow, and touches only the memory it uses (fresh pages are costly:
//! the kernel zeroes each one).

use std::ops::{Index, IndexMut};

/// Elements per chunk.
const CHUNK: usize = 1 << 16;

/// A stack stored in chunks of [`CHUNK`] elements; chunks are kept once allocated, so a path
/// that goes up and down across a chunk boundary allocates nothing.
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn push(&mut self, x: T) {
        let c = self.len / CHUNK;
        if c == self.chunks.len() {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.chunks[c].push(x);
        self.len += 1;
    }

    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        self.chunks[self.len / CHUNK].pop()
    }

    /// Bottom to top.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|c| c.iter())
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_vector_across_chunk_boundaries() {
        let mut s = Chunked::default();
        let mut v = Vec::new();
        // up past two boundaries, down across one, up again
        for round in [2 * CHUNK + 5, CHUNK + 3, 3 * CHUNK] {
            while v.len() < round {
                s.push(v.len() * 7);
                v.push(v.len() * 7);
            }
            while v.len() > round / 2 {
                assert_eq!(s.pop(), v.pop());
            }
            assert_eq!(s.len(), v.len());
            assert_eq!(s[s.len() - 1], v[v.len() - 1]);
            assert!(s.iter().eq(v.iter()));
            for i in [0, CHUNK - 1, CHUNK, v.len() - 1] {
                if i < v.len() {
                    assert_eq!(s[i], v[i]);
                }
            }
        }
        let top = s.len() - 1;
        s[top] = 1;
        assert_eq!(s.pop(), Some(1));
        while s.pop().is_some() {}
        assert!(s.len() == 0 && s.pop().is_none());
    }
}
