//! The state exchange: the messages between workers, and a state's bytes on its way to its
//! owner (its canon's numbering, then the state itself), written once by the worker that
//! reached it and read once by its owner if the state is new there. Most successors cross
//! without their bytes: a [`Msg::Claim`] tells the owner of one that its sender keeps it, and
//! the owner answers with [`Msg::Expand`] if it was new.

use crate::canon::Canon;
use crate::runtime::{Portable, State};
use crate::search::Choice;
use serde::{Deserialize, Serialize};

use super::path::NodeRef;
use super::rounds::Status;
use super::Slot;

/// The messages between workers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Msg {
    /// A successor for its owner: its fingerprint and level, where it came from, and the
    /// state's bytes.
    Arrive {
        fp: u64,
        level: u64,
        from: NodeRef,
        from_fp: u64,
        choice: Choice,
        state: Bytes,
    },
    /// A successor for its owner, kept by its sender (where: `slot`): as [`Msg::Arrive`]
    /// without the state. The owner stores the fingerprint and, once the state's level is
    /// settled, asks one holder for it ([`Msg::Expand`]).
    Claim {
        fp: u64,
        level: u64,
        from: NodeRef,
        from_fp: u64,
        choice: Choice,
        slot: Slot,
    },
    /// The owner's answer to a [`Msg::Claim`] of a new state: its level is settled, its parent
    /// record is `at` (at the owner), made from the parent `from` (fingerprint `from_fp`) and
    /// `choice`; the holder checks it as a new state and expands it.
    Expand {
        slot: Slot,
        level: u64,
        at: NodeRef,
        from: NodeRef,
        from_fp: u64,
        choice: Choice,
    },
    /// A better parent for a successor sent to its owner in an earlier round of the same
    /// level (which the owner has stored): as [`Msg::Arrive`] without the state.
    Better {
        fp: u64,
        level: u64,
        from: NodeRef,
        from_fp: u64,
        choice: Choice,
    },
    Status(u32, Box<Status>),
    /// A path walked back to `node` of the receiver: the choices from there on, last first.
    Walk {
        node: u32,
        choices: Vec<Choice>,
    },
    /// The whole path: the initial valuation (encoded) and the choices, last first.
    Path {
        init: Vec<u8>,
        choices: Vec<Choice>,
    },
}

/// The bytes of a [`Msg::Arrive`] besides the state's own, as timely's bincode writes it:
/// the destination (4), the variant (4), the fingerprint, level, parent node, parent
/// fingerprint, choice and the state's length (8 each).
pub(super) const ARRIVE_HEADER: u64 = 56;

/// The bytes of a [`Msg::Better`]: those of [`ARRIVE_HEADER`] but the state's length.
pub(super) const BETTER_BYTES: u64 = 48;

/// The bytes of a [`Msg::Claim`]: those of a [`Msg::Better`] and the slot (4 + 8 + 4).
pub(super) const CLAIM_BYTES: u64 = 64;

/// The bytes of a [`Msg::Expand`]: the destination, the variant, the slot, level, two nodes,
/// the parent's fingerprint and the choice.
pub(super) const EXPAND_BYTES: u64 = 64;

/// A state's bytes, serialized as one byte string (serde's default for a `Vec<u8>` is a
/// sequence, written and read a byte at a time).
#[derive(Clone, Debug)]
pub(super) struct Bytes(pub(super) Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a state's bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// The bytes of a state sent to its owner: its canon's numbering (see
/// [`Canon::numbering`]: a tag, 0 for none, else 1 + whether it is free of the threads'
/// order, then the addresses as varints), so that the owner need not walk the state again to
/// fingerprint its successors, then the state ([`Portable::encode`]).
pub(super) fn encode_arrival(
    state: &State,
    canon: &Canon,
    out: &mut Vec<u8>,
    seen: &mut crate::runtime::Encoded,
) {
    match canon.numbering() {
        None => out.push(0),
        Some((order_free, order)) => {
            out.push(1 + u8::from(order_free));
            crate::runtime::wire::uint(order.len() as u64, out);
            for &a in order {
                crate::runtime::wire::uint(u64::from(a), out);
            }
        }
    }
    Portable::encode_cached(state, out, seen);
}

/// The state and (unless it was sent without one) the canon that [`encode_arrival`] wrote,
/// for the state whose fingerprint is `fp`; `None` for bytes that are not such a state.
pub(super) fn decode_arrival(
    fp: u64,
    bytes: &[u8],
    seen: &mut crate::runtime::Decoded,
) -> Option<(State, Option<Canon>)> {
    let mut r = crate::runtime::wire::Reader { bytes, at: 0 };
    let canon = match r.byte()? {
        0 => None,
        tag @ (1 | 2) => {
            let n = r.length()?;
            let order = (0..n)
                .map(|_| r.uint().and_then(|a| u32::try_from(a).ok()))
                .collect::<Option<Vec<_>>>()?;
            Some(Canon::from_numbering(fp, tag == 2, &order))
        }
        _ => return None,
    };
    let state = Portable::decode_shared(&bytes[r.at..], seen)?;
    Some((state, canon))
}
