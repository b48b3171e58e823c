//! Which of a step's outcomes to build, and the enumeration of value combinations that
//! starts at the window instead of listing everything before it.

use super::Outcome;
use crate::runtime::value::Value;

/// Which of a step's outcomes to build: those at positions `skip .. skip + take` of the step's
/// list. A statement whose outcomes are a product of value lists (`*` in parallel assignments
/// and arguments, havoc, `constrain`) starts its enumeration at `skip`, so one outcome of
/// 2^24 costs one outcome, not the list; other statements build their list and are cut to the
/// window afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::runtime) struct Window {
    skip: u64,
    take: u64,
    /// Set by the statement that enumerated only the window itself.
    applied: bool,
}

impl Window {
    /// Every outcome.
    pub(in crate::runtime) const ALL: Window = Window {
        skip: 0,
        take: u64::MAX,
        applied: false,
    };

    pub(in crate::runtime) fn new(skip: u64, take: u64) -> Window {
        Window {
            skip,
            take,
            applied: false,
        }
    }

    /// Cuts `out[first..]`, the whole list of a step's outcomes, to the window (unless the
    /// statement enumerated the window itself).
    pub(super) fn cut(&self, out: &mut Vec<Outcome>, first: usize) {
        if self.applied {
            return;
        }
        if self.skip > 0 {
            let skip = (self.skip.min((out.len() - first) as u64)) as usize;
            out.drain(first..first + skip);
        }
        if ((out.len() - first) as u64) > self.take {
            out.truncate(first + self.take as usize);
        }
    }
}

/// Calls `f` with every combination that draws one value from each list (the last list varies
/// fastest). Nothing is called if some list is empty.
pub(super) fn for_each_product(alts: &[Vec<Value>], f: impl FnMut(&[Value])) {
    let mut all = Window::ALL;
    for_each_product_in(alts, &mut all, f)
}

/// [`for_each_product`] for the combinations at positions `win.skip .. win.skip + win.take`
/// only: the first is found by reading `skip` in the mixed radix of the lists' lengths, so
/// nothing before it is enumerated.
pub(super) fn for_each_product_in(
    alts: &[Vec<Value>],
    win: &mut Window,
    mut f: impl FnMut(&[Value]),
) {
    win.applied = true;
    if alts.iter().any(|a| a.is_empty()) {
        return;
    }
    let mut idx = vec![0usize; alts.len()];
    let mut rest = u128::from(win.skip);
    for (i, a) in idx.iter_mut().zip(alts).rev() {
        let n = a.len() as u128;
        *i = (rest % n) as usize;
        rest /= n;
    }
    if rest > 0 {
        // the window starts beyond the last combination
        return;
    }
    let mut cur: Vec<Value> = idx.iter().zip(alts).map(|(&i, a)| a[i]).collect();
    let mut left = win.take;
    loop {
        if left == 0 {
            return;
        }
        left -= 1;
        f(&cur);
        let mut i = alts.len();
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            if idx[i] + 1 < alts[i].len() {
                idx[i] += 1;
                cur[i] = alts[i][idx[i]];
                break;
            }
            idx[i] = 0;
            cur[i] = alts[i][0];
        }
    }
}
