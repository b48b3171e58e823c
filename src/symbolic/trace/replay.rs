//! The end of a sequential counterexample: the walk's points turned into a path of
//! interpreter choices, matched step by step against the outcomes of `runtime::step`.

use super::{Trail, Xfer, NONE};
use crate::runtime::{Outcome, State, Value};
use crate::search::{Finding, Path, Replayed, Replayer};

/// Why [`Engine::concretize`] failed.
pub(super) enum Fail {
    /// A gap of the trail met a choice, or returned elsewhere than the next point.
    Gap,
    /// The points do not replay (an internal error).
    Other(String),
}

impl Fail {
    fn into_message(self) -> String {
        match self {
            Fail::Gap => "a forced call does not replay".into(),
            Fail::Other(why) => why,
        }
    }
}

impl From<String> for Fail {
    fn from(why: String) -> Fail {
        Fail::Other(why)
    }
}

impl From<&str> for Fail {
    fn from(why: &str) -> Fail {
        Fail::Other(why.into())
    }
}
use crate::symbolic::bdd::Bdds;
use crate::symbolic::reach::{Engine, Found};

impl<B: Bdds> Engine<'_, '_, B> {
    /// Turns a finding into a path and the path's replay on the interpreter (every state when
    /// `all`, else the last).
    pub fn finding(&self, f: Found, all: bool) -> Result<(Finding, Replayed), String> {
        let b = &self.bdd;
        let (v, set) = match f {
            Found::Target { v, .. } => (v, b.constant(true)),
            Found::Assertion { v } => match self.xfer[v as usize].as_deref() {
                Some(Xfer::Assert { bad, .. }) => (v, bad.clone()),
                _ => return Err("not an assertion".into()),
            },
        };
        let (s, meet) = self
            .first_meet(v, &set, NONE)
            .ok_or("the error vertex has no path edge")?;
        let violation = matches!(f, Found::Assertion { .. });
        let points = self.walk(self.point(v, &meet, s), None, true)?;
        let (path, replayed) = match self.concretize(&points, violation, all) {
            Err(Fail::Gap) => {
                // a forced call met a choice after all: the trace with every point
                let points = self.walk(self.point(v, &meet, s), None, false)?;
                self.concretize(&points, violation, all)
            }
            other => other,
        }
        .map_err(Fail::into_message)?;
        Ok((self.finding_of(f, path), replayed))
    }

    /// Whether state `s` is at the vertex of the trail's point `i` and agrees with its
    /// valuation.
    fn agrees(&self, s: &State, t: &Trail, i: usize) -> bool {
        let Some(frame) = s.threads.first().and_then(|t| t.stack.top()) else {
            return false;
        };
        let v = t.v[i];
        let q = self.proc_of[v as usize];
        if frame.proc != q || frame.pc != self.pc(v) {
            return false;
        }
        let globals = self.m.global_values(s, Some(0));
        self.scope_of(v).iter().enumerate().all(|(k, &x)| {
            let (slot, copy) = self.layout.slot_of(x);
            if copy != 1 {
                return true;
            }
            let actual = if slot < self.g {
                // a global no execution reads before writing it again from here: the runtime
                // gives a `*` it gets one value (`Machine::global_live_before`), where the
                // path edges keep both, and the walk may have picked the other
                if !self.m.global_live_before(q, frame.pc, slot as usize) {
                    return true;
                }
                globals[slot as usize]
            } else {
                match frame.locals.get((slot - self.g) as usize) {
                    Some(v) => *v,
                    None => return true,
                }
            };
            actual.as_bool() == t.bit(i, k)
        })
    }

    /// Executes the points on the interpreter and records the choices: the path and its
    /// replay (every state when `all`, else the last), which is the one execution of the path.
    /// A gap runs its call on the interpreter to the return, one outcome a step; a step with
    /// another number of outcomes there, or a return that does not agree with the point after
    /// the gap, is [`Fail::Gap`] (the caller then walks again without gaps).
    pub(super) fn concretize(
        &self,
        points: &Trail,
        violation: bool,
        all: bool,
    ) -> Result<(Path, Replayed), Fail> {
        let m = self.m;
        let p = m.program;
        if points.len() == 0 {
            return Err("an empty walk".into());
        }
        let scope0 = self.scope_of(points.v[0]);
        let value = |var: u32, init| {
            let at = scope0.binary_search(&var).ok().map(|k| points.bit(0, k));
            Value::Bool(
                at.or(crate::symbolic::model::fixed_init(init))
                    .unwrap_or(false),
            )
        };
        let mut init: Vec<Value> = Vec::new();
        for pass in [false, true] {
            for (i, gv) in p.globals.iter().enumerate() {
                if gv.thread_local == pass {
                    init.push(value(self.layout.cv(i as u32), gv.init));
                }
            }
        }
        for (j, lv) in p.procs[self.main as usize].locals.iter().enumerate() {
            init.push(value(self.layout.cv(self.g + j as u32), lv.init));
        }
        let mut r = Replayer::start(m, init, all)?;
        if !self.agrees(r.state(), points, 0) {
            return Err("the initial state does not match".into());
        }
        // a gap's steps, at most: the stamps decrease strictly along a walk, so a trail
        // without gaps has at most a point per logged batch
        let bound = self.log.len() + 2;
        let mut k = 1;
        while k < points.len() {
            if points.v[k] == NONE {
                // the call at point k - 1 runs through to its return, point k + 1
                let depth = |r: &Replayer| r.state().threads.first().map_or(0, |t| t.stack.depth());
                let below = depth(&r);
                let mut n = 0;
                loop {
                    if n == bound || !r.take_only(0)? {
                        return Err(Fail::Gap);
                    }
                    n += 1;
                    if depth(&r) <= below {
                        break;
                    }
                }
                if k + 1 >= points.len() || !self.agrees(r.state(), points, k + 1) {
                    return Err(Fail::Gap);
                }
                k += 2;
                continue;
            }
            // a step with one outcome takes it (the walk's point is checked at the next step
            // with a choice, and at the end)
            let last = k + 1 == points.len();
            if !last && r.take_only(0)? {
                k += 1;
                continue;
            }
            let outs = if last { r.outcomes(0)? } else { r.listed() };
            let hit = outs.iter().position(|o| match o {
                Outcome::Next { state, .. } => self.agrees(state, points, k),
                _ => false,
            });
            let Some(i) = hit else {
                let v = points.v[k];
                return Err(Fail::Other(format!(
                    "step {k}: no outcome reaches {} pc {}",
                    p.procs[self.proc_of[v as usize] as usize].name,
                    self.pc(v)
                )));
            };
            r.take(i as u32)?;
            k += 1;
        }
        if violation {
            let i = r
                .outcomes(0)?
                .iter()
                .position(|o| matches!(o, Outcome::Violation(_)))
                .ok_or("the assertion does not fail")?;
            r.take(i as u32)?;
        }
        Ok(r.finish())
    }
}
