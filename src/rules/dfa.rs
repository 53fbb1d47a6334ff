//! The compiled grammars: the dense DFAs that `build.rs` makes from the
//! tables of [`super::grammar`] when the crate is built, loaded on first
//! use, and the whole-input matcher that walks them.
//!
//! Compiling them at run time cost about a millisecond per scheme (6 ms for
//! the IP literal), paid by whichever thread met the scheme first while
//! the others waited for it: on a pre-commit run that is a good part of
//! the time, and it made a second thread pay off less on a docs tree.
//! Loading a serialized DFA costs a validation pass over its table, a few
//! microseconds.

use regex_automata::Anchored;
use regex_automata::dfa::{Automaton, dense};
pub(crate) use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::util::wire::AlignAs;

use crate::diag::Grammar;

// `RFC1738`, `RFC3986` and `MODERN`: for each grammar, the serialized DFAs of
// `grammar::compiled_patterns`, in that order, for this target's byte order.
include!(concat!(env!("OUT_DIR"), "/dfas.rs"));

/// The DFA of pattern `index` of `grammar::compiled_patterns(grammar)`.
pub(crate) fn precompiled(grammar: Grammar, index: usize) -> FullMatch {
    let (dfa, _) = dense::DFA::from_bytes(precompiled_bytes(grammar, index))
        .expect("build.rs wrote a valid DFA");
    FullMatch::from_dfa(dfa)
}

/// The serialized form of that DFA, as embedded.
pub(crate) fn precompiled_bytes(grammar: Grammar, index: usize) -> &'static [u8] {
    match grammar {
        Grammar::Rfc1738 => &RFC1738[index].bytes,
        Grammar::Rfc3986 => &RFC3986[index].bytes,
        Grammar::Modern => &MODERN[index].bytes,
    }
}

/// An anchored dense DFA used for whole-input matching, with hand-made
/// acceleration for self-loops.
///
/// Most of a URL is spent in a few states that loop on a large byte class
/// (inside a host label, a path segment, a search part). Walking those
/// bytes through the transition table costs a dependent load per byte; a
/// per-state membership table lets the loop skip them with independent
/// loads instead, about twice as fast on typical URLs. (regex-automata's own
/// acceleration is for states that loop on all but a few bytes, the
/// opposite case.)
pub(crate) struct FullMatch {
    dfa: dense::DFA<&'static [u32]>,
    start: StateID,
    /// `dfa.stride2()`: turns a (premultiplied) state ID into an index.
    stride2: usize,
    /// Per state index: 0, or 1 + the index in `loops` of the bytes on
    /// which the state goes to itself.
    loop_of: Vec<u16>,
    /// Self-loop byte tables, for states with enough of them to pay.
    loops: Vec<[bool; 256]>,
}

/// A state needs at least this many self-loop bytes to get a table.
const MIN_LOOP_BYTES: usize = 16;

impl FullMatch {
    /// Compiles `pattern` on the spot (tests of single productions; the
    /// validator uses [`precompiled`]). The DFA goes through the same
    /// serialized form as the build script's, and is leaked: tests make
    /// few.
    #[cfg(test)]
    pub(crate) fn new(pattern: &str) -> FullMatch {
        let (bytes, pad) = super::grammar::compile(pattern).to_bytes_native_endian();
        // `Vec::leak` keeps the allocation, so the padding still aligns.
        let bytes: &'static [u8] = &bytes.leak()[pad..];
        let (dfa, _) = dense::DFA::from_bytes(bytes).expect("a DFA just serialized");
        FullMatch::from_dfa(dfa)
    }

    fn from_dfa(dfa: dense::DFA<&'static [u32]>) -> FullMatch {
        // The patterns have no look-around, so one start state serves every
        // input.
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::Yes))
            .expect("anchored start state");
        let stride2 = dfa.stride2();
        let mut loop_of = Vec::new();
        let mut loops = Vec::new();
        // Visit every reachable state once, breadth first.
        let mut queue = vec![start];
        // By state index; grows as states are met.
        let mut seen: Vec<bool> = Vec::new();
        let mut mark = |sid: StateID| {
            let i = sid.as_usize() >> stride2;
            if seen.len() <= i {
                seen.resize(i + 1, false);
            }
            !std::mem::replace(&mut seen[i], true)
        };
        mark(start);
        let mut next = 0;
        while next < queue.len() {
            let sid = queue[next];
            next += 1;
            let mut table = [false; 256];
            let mut n = 0;
            for b in 0..=255u8 {
                let to = dfa.next_state(sid, b);
                if to == sid {
                    table[usize::from(b)] = true;
                    n += 1;
                } else if mark(to) {
                    queue.push(to);
                }
            }
            let index = sid.as_usize() >> stride2;
            if loop_of.len() <= index {
                loop_of.resize(index + 1, 0);
            }
            if n >= MIN_LOOP_BYTES && !dfa.is_dead_state(sid) && loops.len() < usize::from(u16::MAX)
            {
                loops.push(table);
                loop_of[index] = u16::try_from(loops.len()).expect("bounded above");
            }
        }
        FullMatch { dfa, start, stride2, loop_of, loops }
    }

    /// Whether the whole of `hay` matches.
    #[inline]
    pub(crate) fn is_match(&self, hay: &[u8]) -> bool {
        self.is_match_from(self.start, hay)
    }

    /// The state after reading `prefix` from the start, unless that is the
    /// dead state.
    pub(crate) fn state_after(&self, prefix: &[u8]) -> Option<StateID> {
        let sid = prefix.iter().fold(self.start, |sid, &b| self.dfa.next_state(sid, b));
        (!self.dfa.is_dead_state(sid)).then_some(sid)
    }

    /// Whether `hay` takes state `sid` (from [`FullMatch::state_after`]) to
    /// a match at its end.
    #[inline]
    pub(crate) fn is_match_from(&self, sid: StateID, hay: &[u8]) -> bool {
        let dfa = &self.dfa;
        let mut sid = sid;
        let mut i = 0;
        while i < hay.len() {
            let l = self.loop_of[sid.as_usize() >> self.stride2];
            if l != 0 {
                let table = &self.loops[usize::from(l - 1)];
                while i < hay.len() && table[usize::from(hay[i])] {
                    i += 1;
                }
                if i == hay.len() {
                    break;
                }
            }
            sid = dfa.next_state(sid, hay[i]);
            if dfa.is_dead_state(sid) {
                return false;
            }
            i += 1;
        }
        // Matches are reported one transition late; the end-of-input
        // transition tells whether a match ends exactly at the last byte.
        dfa.is_match_state(dfa.next_eoi_state(sid))
    }

    /// The DFA's heap size, for tests that keep it in check.
    #[cfg(test)]
    pub(crate) fn memory_usage(&self) -> usize {
        self.dfa.memory_usage()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::grammar;

    /// Cargo reruns the build script when the grammar changes; this holds
    /// the embedded tables to the grammar in the source all the same, and
    /// checks that they load.
    #[test]
    fn precompiled_dfas_are_the_grammar_compiled_now() {
        for g in Grammar::ALL {
            let patterns = grammar::compiled_patterns(g);
            assert_eq!(patterns.len(), grammar::URL_TOPS.len() + 1);
            for (i, pattern) in patterns.iter().enumerate() {
                let (bytes, pad) = grammar::compile(pattern).to_bytes_native_endian();
                assert!(precompiled_bytes(g, i) == &bytes[pad..], "{g:?} pattern {i} is stale");
                let _ = precompiled(g, i);
            }
        }
    }

    #[test]
    fn self_loop_tables_match_the_transitions() {
        let d = precompiled(Grammar::Rfc1738, 1);
        assert!(!d.loops.is_empty(), "an http DFA has looping states");
        for (index, &l) in d.loop_of.iter().enumerate() {
            if l == 0 {
                continue;
            }
            let sid = StateID::new(index << d.stride2).expect("a state index");
            for b in 0..=255u8 {
                let loops = d.dfa.next_state(sid, b) == sid;
                assert_eq!(d.loops[usize::from(l - 1)][usize::from(b)], loops, "{index} {b}");
            }
        }
    }
}
