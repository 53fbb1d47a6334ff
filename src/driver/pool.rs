//! The pool: workers take the inputs in order, a big file is cut into
//! parts scanned side by side, and the writer hands each file's output
//! to the caller in input order as soon as that order allows.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::parts::{
    Found, Joining, Part, PartResult, Rendered, count_part, cuts, part_size, scan_mail_part,
    scan_span_with,
};
use super::read::{AtReader, BINARY_SNIFF, PIECE, process, read_head};
use super::walk::{InputError, Walked};
use super::{Context, Emit, Event, FileResult, Input, RunOptions, Summary, panic_message, reason};
use crate::extract::{BlockMark, Extracted, Scratch, Sifter, Silence};
use crate::mail::{InputKind, MailUrl};

/// Tasks listed but not started, at most: the walk may run ahead of the
/// scan, but not without bound.
pub(super) const MAX_QUEUED: usize = 1 << 16;

/// How far (in tasks) a worker may start ahead of the output: a slow file
/// holds up the output, and the results after it must not pile up without
/// bound meanwhile.
pub(super) const MAX_AHEAD: u64 = 4096;

/// One unit of parallel work.
pub(super) enum Task {
    /// A whole input (which the worker may still cut into parts).
    Whole(Arc<Input>),
    /// Part `.1` of a big file.
    Part(Arc<Big>, usize),
}

/// A big file cut into parts.
///
/// Memory stays bounded by the number of parts in flight (handed to a
/// worker and not yet written), which [`Ordered::release`] holds to the
/// thread count: a part is only queued when an earlier one is written, so
/// results never pile up behind a slow part. Nothing ever waits for a
/// slot: a part that cannot be queued yet is simply not queued, and the
/// thread that writes a part queues the next (a worker blocked on a slot
/// while the part that frees it waited for a worker deadlocked with eight
/// threads or more).
///
/// Each part renders its URLs itself, as it finds them, once the lines
/// (and messages) of every part before it are counted: a text part counts
/// its own lines first (a fast pass), a mail part publishes its counts
/// when it is read. Rendered output is a fraction of the found URLs'
/// size, and the part at the head of the output writes it out at once.
pub(super) struct Big {
    pub(super) input: Arc<Input>,
    /// The file's place in the output order.
    pub(super) seq: u64,
    pub(super) parts: Vec<Part>,
    /// Line breaks and messages of each part, once known.
    pub(super) counts: Vec<OnceLock<(u64, u64)>>,
    /// The block markers of each text part, set before its count.
    pub(super) marks: Vec<OnceLock<Vec<BlockMark>>>,
    /// Parts queued so far (changed under the output lock only).
    pub(super) released: AtomicUsize,
}

impl Big {
    /// Lines and messages before part `k`, once every part before it is
    /// counted; `known` carries the prefix summed so far between calls.
    pub(super) fn base(&self, k: usize, known: &mut (usize, u64, u64)) -> Option<(u64, u64)> {
        while known.0 < k {
            let &(lines, messages) = self.counts[known.0].get()?;
            *known = (known.0 + 1, known.1 + lines, known.2 + messages);
        }
        Some((known.1, known.2))
    }

    /// Whether an `urlsift: disable` block is open where part `k` starts,
    /// once the markers of every part before it are read.
    pub(super) fn block_open(&self, k: usize) -> Option<bool> {
        for m in self.marks[..k].iter().rev() {
            if let Some(&(_, state)) = m.get()?.last() {
                return Some(state.is_some());
            }
        }
        Some(false)
    }
}

/// A finished task, waiting for its turn to be written.
pub(super) enum Done {
    Whole(Arc<Input>, FileResult),
    Part(Arc<Big>, usize, PartResult),
    Problem(InputError),
}

/// The place of one input (or problem) in the output order.
// Most slots are `Ready`: boxing it would cost an allocation per file.
#[allow(clippy::large_enum_variant)]
pub(super) enum Slot {
    /// Not finished yet.
    Waiting,
    Ready(Done),
    /// A file cut into parts: their results, in order, from part `first`
    /// on (the ones before are written already).
    Parts {
        first: usize,
        parts: VecDeque<Option<Done>>,
    },
}

#[derive(Default)]
pub(super) struct Queue {
    pub(super) tasks: VecDeque<(u64, Task)>,
    /// The source is exhausted: a worker that finds no task may stop.
    pub(super) listed: bool,
    /// Workers waiting for a task.
    pub(super) idle: usize,
    /// Workers running a task (which may queue more).
    pub(super) busy: usize,
    pub(super) walker_waiting: bool,
}

/// Results put back in order: `ring[i]` is the slot of input `next + i`.
pub(super) struct Ordered<W> {
    pub(super) writer: Writer<W>,
    pub(super) next: u64,
    pub(super) ring: VecDeque<Slot>,
    pub(super) failed: Option<io::Error>,
    /// Big files with parts not queued yet, in output order.
    pub(super) bigs: Vec<Arc<Big>>,
    /// Parts queued and not yet written, of every file.
    pub(super) in_flight: usize,
    /// The most parts in flight: the thread count.
    pub(super) limit: usize,
}

pub(super) struct Pool<W> {
    pub(super) queue: Mutex<Queue>,
    /// Signalled when a task is queued, when the source ends, and when the
    /// output moves on while workers wait (they may be held by
    /// `MAX_AHEAD`).
    pub(super) work: Condvar,
    /// Signalled when the queue has room for the walker again.
    pub(super) room: Condvar,
    pub(super) out: Mutex<Ordered<W>>,
    /// `out.next`, readable without the lock.
    pub(super) next: AtomicU64,
    /// The run is stopping (an output error or a panic): nobody starts
    /// anything new, and scans in progress stop at their next read.
    pub(super) failed: AtomicBool,
    /// The first panic outside the per-file guards (in the caller's
    /// callback or the source), re-raised once every thread has stopped.
    pub(super) panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl<W: FnMut(Event<'_>) -> io::Result<()> + Send> Pool<W> {
    pub(super) fn lock_queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f`; a panic in it (the caller's callback, or the source)
    /// stops the run and is kept to be re-raised after every thread has
    /// stopped: without that, the other threads could wait forever for
    /// work or output that the panicking thread was to provide.
    pub(super) fn guarded(&self, f: impl FnOnce()) {
        if let Err(panic) = catch_unwind(AssertUnwindSafe(f)) {
            self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(panic);
            self.stop();
        }
    }

    /// Tells every thread to stop (they check `failed` before each task,
    /// each read and each wait).
    pub(super) fn stop(&self) {
        self.failed.store(true, Ordering::Relaxed);
        let _q = self.lock_queue();
        self.work.notify_all();
        self.room.notify_all();
    }

    /// Stops the run on an output error, which `run_stream` returns.
    pub(super) fn fail(&self, e: io::Error) {
        self.out.lock().unwrap_or_else(|e| e.into_inner()).failed.get_or_insert(e);
        self.stop();
    }

    /// Queues the inputs of `source` in order. Nothing else happens here
    /// per input, not even a `stat`: until the listing ends this thread
    /// does not scan, so any work it does per file is work the other
    /// threads cannot share.
    pub(super) fn list<E: Emit>(
        &self,
        source: impl Iterator<Item = Walked>,
        sifter: &Sifter,
        emit: &E,
    ) {
        let mut scratch = Scratch::default();
        for (seq, w) in (0u64..).zip(source) {
            if self.failed.load(Ordering::Relaxed) {
                return;
            }
            let mut q = self.lock_queue();
            // Room for the tasks, and for the results: problems of the
            // source need no worker but wait in the output like the rest.
            while (q.tasks.len() >= MAX_QUEUED
                || seq >= self.next.load(Ordering::Acquire) + 2 * MAX_QUEUED as u64)
                && !self.failed.load(Ordering::Relaxed)
            {
                q.walker_waiting = true;
                q = self.room.wait(q).unwrap_or_else(|e| e.into_inner());
                q.walker_waiting = false;
            }
            let mut problem = None;
            match w {
                Ok(input) => q.tasks.push_back((seq, Task::Whole(Arc::new(input)))),
                Err(e) => problem = Some(e),
            }
            if q.idle > 0 && !q.tasks.is_empty() {
                self.work.notify_all();
            }
            drop(q);
            if let Some(e) = problem {
                self.finish(seq, Done::Problem(e), sifter, emit, &mut scratch);
            }
        }
    }

    pub(super) fn work<E: Emit>(&self, sifter: &Sifter, emit: &E, opts: RunOptions) {
        let mut scratch = Scratch::default();
        loop {
            let (seq, task) = {
                let mut q = self.lock_queue();
                loop {
                    if self.failed.load(Ordering::Relaxed) {
                        return;
                    }
                    match q.tasks.front() {
                        Some(&(seq, _)) if seq < self.next.load(Ordering::Acquire) + MAX_AHEAD => {
                            break;
                        }
                        // Another worker may still queue parts of a big
                        // file: only when none is busy is the run over.
                        None if q.listed && q.busy == 0 => return,
                        _ => {}
                    }
                    q.idle += 1;
                    q = self.work.wait(q).unwrap_or_else(|e| e.into_inner());
                    q.idle -= 1;
                }
                let t = q.tasks.pop_front().expect("checked above");
                q.busy += 1;
                if q.walker_waiting && q.tasks.len() < MAX_QUEUED / 2 {
                    self.room.notify_one();
                }
                t
            };
            let go_on = self.task(seq, task, sifter, emit, opts, &mut scratch);
            let mut q = self.lock_queue();
            q.busy -= 1;
            if q.busy == 0 && q.listed && q.tasks.is_empty() {
                self.work.notify_all();
            }
            if !go_on {
                return;
            }
        }
    }

    /// Runs one task; false when the run must stop.
    pub(super) fn task<E: Emit>(
        &self,
        seq: u64,
        task: Task,
        sifter: &Sifter,
        emit: &E,
        opts: RunOptions,
        scratch: &mut Scratch,
    ) -> bool {
        let done = match task {
            Task::Whole(input) => {
                // The file is opened and its head read here, once,
                // to decide whether to cut it: only a file that fills
                // the head can be big, so most files need no `fstat`.
                let mut opened = None;
                if let Input::File { path, .. } = &*input
                    && let Ok(f) = File::open(path)
                {
                    if let Err(e) = read_head(AtReader::new(&f), &mut scratch.head) {
                        let r = FileResult { error: Some(reason(&e)), ..FileResult::default() };
                        self.finish(seq, Done::Whole(input, r), sifter, emit, scratch);
                        return true;
                    }
                    // A head short of the sniff is the whole file.
                    let n = scratch.head.len();
                    if (n == BINARY_SNIFF || n as u64 >= 2 * part_size(opts))
                        && let Some((cuts, kind)) = cuts(&f, &scratch.head, opts)
                    {
                        let file = sifter.file_silence(&scratch.head);
                        self.split(seq, &input, &cuts, kind, file);
                        return true;
                    }
                    opened = Some(f);
                }
                // Once everything before this file is written, its
                // output goes out in pieces as it is found; until then
                // it is kept.
                let mut pieces = |buf: &mut Vec<u8>| {
                    if buf.len() < PIECE || self.next.load(Ordering::Acquire) != seq {
                        return Ok(());
                    }
                    let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
                    // Checked and set under the lock that every write
                    // takes: nothing is written after an output error.
                    if self.failed.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    let res = o.writer.piece(&input, buf);
                    if res.is_err() {
                        self.failed.store(true, Ordering::Relaxed);
                    }
                    res
                };
                let r =
                    process(&input, opened, sifter, emit, opts, scratch, &mut pieces, &self.failed);
                match r {
                    Ok(r) => Done::Whole(input, r),
                    Err(e) => {
                        self.fail(e);
                        return false;
                    }
                }
            }
            Task::Part(big, index) => {
                let r = self.scan_part(&big, index, sifter, emit, opts, scratch);
                let done = Done::Part(big, index, r);
                self.finish_part(seq, index, done, sifter, emit, scratch);
                return true;
            }
        };
        self.finish(seq, done, sifter, emit, scratch);
        true
    }

    /// Replaces input `seq`, a big file, by tasks for its parts, as many
    /// as [`Ordered::release`] allows for now. The file's slot learns how
    /// many parts to expect before any of them can finish.
    ///
    /// `file` is what an `urlsift: ignore-file` marker in the file's head
    /// silences: a part past the head does not read it.
    pub(super) fn split(
        &self,
        seq: u64,
        input: &Arc<Input>,
        cuts: &[(u64, u64)],
        kind: InputKind,
        file: Option<Silence>,
    ) {
        let last = cuts.last().expect("at least three cuts").0;
        let parts: Vec<Part> = cuts
            .windows(2)
            .map(|w| {
                let ((start, context), (end, _)) = (w[0], w[1]);
                Part { start, context, kind, end, last: end == last, file }
            })
            .collect();
        let big = Arc::new(Big {
            input: input.clone(),
            seq,
            counts: parts.iter().map(|_| OnceLock::new()).collect(),
            marks: parts.iter().map(|_| OnceLock::new()).collect(),
            parts,
            released: AtomicUsize::new(0),
        });
        let queued = {
            let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
            let slot = o.slot(seq);
            *slot = Slot::Parts { first: 0, parts: big.parts.iter().map(|_| None).collect() };
            let at = o.bigs.partition_point(|b| b.seq < seq);
            o.bigs.insert(at, big);
            o.release()
        };
        self.queue_parts(queued);
    }

    /// Queues parts released by [`Ordered::release`], first: they are the
    /// oldest work.
    pub(super) fn queue_parts(&self, parts: Vec<(Arc<Big>, usize)>) {
        if parts.is_empty() {
            return;
        }
        let mut q = self.lock_queue();
        for (big, index) in parts {
            // Behind the parts queued before, in output order, ahead of
            // every whole file.
            let key = (big.seq, index);
            let at = q
                .tasks
                .iter()
                .position(|(seq, t)| match t {
                    Task::Part(_, i) => (*seq, *i) > key,
                    Task::Whole(_) => true,
                })
                .unwrap_or(q.tasks.len());
            q.tasks.insert(at, (big.seq, Task::Part(big, index)));
        }
        if q.idle > 0 {
            self.work.notify_all();
        }
    }

    /// Scans part `k` of `big`. Its URLs are rendered here as soon as the
    /// lines (and messages) before the part are known, and written out at
    /// once while the part is at the head of the output; only what was
    /// found before that is kept as found, for the writer to render.
    pub(super) fn scan_part<E: Emit>(
        &self,
        big: &Big,
        k: usize,
        sifter: &Sifter,
        emit: &E,
        opts: RunOptions,
        scratch: &mut Scratch,
    ) -> PartResult {
        let part = big.parts[k];
        let input = &*big.input;
        let mut early = Rendered::default();
        let mut known = (0, 0, 0);
        let stream = |early: &mut Rendered| {
            if early.out.len() >= PIECE {
                self.stream_piece(big, k, early);
            }
        };
        if part.kind == InputKind::Text {
            // A fast pass, so that the parts after this one know their
            // lines (and the blocks open at their start) long before this
            // one is scanned.
            let (counted, marks) = match count_part(input, part, sifter) {
                Ok((n, marks)) => (Some(n), marks),
                Err(_) => (None, Vec::new()),
            };
            let _ = big.marks[k].set(marks.clone());
            if let Some(n) = counted {
                let _ = big.counts[k].set((n, 0));
            }
            let mut pending: Vec<Extracted> = Vec::new();
            let lines_of = |base: u64| base - part.context_lines();
            // The part is scanned as if no block were open at its start;
            // when one is, its URLs wait for the writer, who scans it
            // again knowing the block (see `Joining::add`).
            let mut open = None;
            let (stats, error) =
                scan_span_with(input, part.span(part.start, None), sifter, scratch, |mut e| {
                    let ready = big
                        .base(k, &mut known)
                        .filter(|_| !*open.get_or_insert_with(|| big.block_open(k) == Some(true)));
                    let Some((base, _)) = ready else {
                        return pending.push(e);
                    };
                    for mut p in pending.drain(..) {
                        p.shift_lines(lines_of(base));
                        early.add(emit, input, &p, Context::default(), opts.tally);
                    }
                    e.shift_lines(lines_of(base));
                    early.add(emit, input, &e, Context::default(), opts.tally);
                    stream(&mut early);
                });
            let ready = big.base(k, &mut known).filter(|_| big.block_open(k) == Some(false));
            if let Some((base, _)) = ready {
                for mut p in pending.drain(..) {
                    p.shift_lines(lines_of(base));
                    early.add(emit, input, &p, Context::default(), opts.tally);
                }
            }
            debug_assert!(
                error.is_some()
                    || big.counts[k]
                        .get()
                        .is_none_or(|c| c.0 == stats.lines - part.context_lines())
            );
            let found = Found::Text { urls: pending, stats, marks };
            return PartResult { early, found, error };
        }
        // With `--resolve-local`, a mail URL is rendered with the file's
        // index of message ids, which the writer builds: it waits.
        let mut pending: Vec<MailUrl> = Vec::new();
        let mut problems = Vec::new();
        let render = |m: &mut MailUrl, base: (u64, u64), early: &mut Rendered| {
            m.shift(base.0, base.1);
            let cx = Context {
                mail: Some(m),
                resolved: None,
                compressed: None,
                warc: None,
                record: None,
            };
            early.add(emit, input, &m.url, cx, opts.tally);
        };
        let (stats, error) = scan_mail_part(
            input,
            part,
            sifter,
            |mut m| {
                let base = big.base(k, &mut known).filter(|_| !opts.resolve_local);
                let Some(base) = base else { return pending.push(m) };
                for mut p in pending.drain(..) {
                    render(&mut p, base, &mut early);
                }
                render(&mut m, base, &mut early);
                stream(&mut early);
            },
            |p| problems.push(p),
        );
        if error.is_none() {
            let _ = big.counts[k].set((stats.lines, stats.mail.messages));
        }
        if let Some(base) = big.base(k, &mut known).filter(|_| !opts.resolve_local) {
            for mut p in pending.drain(..) {
                render(&mut p, base, &mut early);
            }
        }
        PartResult { early, found: Found::Mail { urls: pending, problems, stats }, error }
    }

    /// Writes out what part `k` of `big` rendered so far, if the part is
    /// at the head of the output (every file and part before it written).
    pub(super) fn stream_piece(&self, big: &Big, k: usize, early: &mut Rendered) {
        if self.next.load(Ordering::Acquire) != big.seq || self.failed.load(Ordering::Relaxed) {
            return;
        }
        let mut o = self.out.lock().unwrap_or_else(|e| e.into_inner());
        // Checked under the lock that every write takes: nothing is
        // written after an output error, nor out of order.
        if self.failed.load(Ordering::Relaxed) || o.next != big.seq {
            return;
        }
        match o.ring.front() {
            Some(Slot::Parts { first, .. }) if *first == k => {}
            _ => return,
        }
        // A panic of the caller's callback is theirs to see, as in
        // `guarded`, not this part's scan error.
        let written = catch_unwind(AssertUnwindSafe(|| {
            o.writer.stream(&big.input, big.parts[k], &mut early.out)
        }));
        match written {
            Ok(Ok(streamed)) => early.streamed |= streamed,
            Err(panic) => {
                drop(o);
                self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(panic);
                self.stop();
            }
            Ok(Err(e)) => {
                self.failed.store(true, Ordering::Relaxed);
                o.failed.get_or_insert(e);
                drop(o);
                self.stop();
            }
        }
    }

    /// Files the result of input `seq` and writes whatever is next in
    /// order.
    pub(super) fn finish<E: Emit>(
        &self,
        seq: u64,
        done: Done,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) {
        let mut guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
        *guard.slot(seq) = Slot::Ready(done);
        self.write_ready(guard, sifter, emit, scratch);
    }

    /// Files the result of part `index` of input `seq` and writes whatever
    /// is next in order.
    pub(super) fn finish_part<E: Emit>(
        &self,
        seq: u64,
        index: usize,
        done: Done,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) {
        let mut guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let Slot::Parts { first, parts } = guard.slot(seq) else {
            unreachable!("a part's slot is made before the part is queued")
        };
        parts[index - *first] = Some(done);
        self.write_ready(guard, sifter, emit, scratch);
    }

    /// Writes the results at the head of the order that are ready, and
    /// wakes whoever waits for the output to move on.
    pub(super) fn write_ready<E: Emit>(
        &self,
        mut guard: std::sync::MutexGuard<'_, Ordered<W>>,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) {
        let o = &mut *guard;
        let before = o.next;
        // `next` must be published even if the caller's callback panics
        // below: workers held by `MAX_AHEAD` wait for it.
        let published = Publish { pool: self, next: &mut o.next };
        let mut failed = None;
        let mut written_parts = false;
        while !self.failed.load(Ordering::Relaxed) {
            let done = match o.ring.front_mut() {
                Some(Slot::Ready(_)) => {
                    let Some(Slot::Ready(done)) = o.ring.pop_front() else { unreachable!() };
                    *published.next += 1;
                    done
                }
                Some(Slot::Parts { first, parts })
                    if parts.front().is_some_and(Option::is_some) =>
                {
                    let done = parts.pop_front().flatten().expect("checked above");
                    *first += 1;
                    o.in_flight -= 1;
                    written_parts = true;
                    if parts.is_empty() {
                        o.ring.pop_front();
                        *published.next += 1;
                    }
                    done
                }
                _ => break,
            };
            if let Err(e) = o.writer.done(done, sifter, emit, scratch) {
                // Set before the lock is released, so that no other
                // thread writes after the error.
                self.failed.store(true, Ordering::Relaxed);
                failed = Some(e);
                break;
            }
        }
        let moved = *published.next != before;
        drop(published);
        if let Some(e) = failed {
            o.failed.get_or_insert(e);
            drop(guard);
            self.stop();
        } else if moved || written_parts {
            // A part written, or a big file now at the head: parts may be
            // queued again.
            let queued = o.release();
            drop(guard);
            self.queue_parts(queued);
            let q = self.lock_queue();
            if (q.idle > 0 && !q.tasks.is_empty()) || q.walker_waiting {
                self.work.notify_all();
                self.room.notify_all();
            }
        }
    }
}

impl<W> Ordered<W> {
    /// Releases the parts of big files that may be queued now, in output
    /// order: a file may have at most `limit` parts in flight, and all
    /// files together `limit` too, except the file at the head of the
    /// output, which may always have its own `limit` (were the slots all
    /// held by later files, whose results wait for it, nothing would
    /// move again).
    pub(super) fn release(&mut self) -> Vec<(Arc<Big>, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.bigs.len() {
            let big = self.bigs[i].clone();
            let Slot::Parts { first: written, .. } = *self.slot(big.seq) else {
                unreachable!("a big file's slot holds its parts until the last is written")
            };
            let head = big.seq == self.next;
            let mut released = big.released.load(Ordering::Relaxed);
            while released < big.parts.len()
                && released - written < self.limit
                && (head || self.in_flight < self.limit)
            {
                out.push((big.clone(), released));
                released += 1;
                self.in_flight += 1;
            }
            big.released.store(released, Ordering::Relaxed);
            if released == big.parts.len() {
                self.bigs.remove(i);
            } else {
                i += 1;
            }
        }
        out
    }

    /// The slot of input `seq`, which is not written yet.
    pub(super) fn slot(&mut self, seq: u64) -> &mut Slot {
        let i = (seq - self.next) as usize;
        if self.ring.len() <= i {
            self.ring.resize_with(i + 1, || Slot::Waiting);
        }
        &mut self.ring[i]
    }
}

/// Stores `Ordered::next` into `Pool::next` when dropped, normally or in
/// a panic.
pub(super) struct Publish<'a, W> {
    pub(super) pool: &'a Pool<W>,
    pub(super) next: &'a mut u64,
}

impl<W> Drop for Publish<'_, W> {
    fn drop(&mut self) {
        self.pool.next.store(*self.next, Ordering::Release);
    }
}

/// Hands results to the caller's callbacks and keeps the totals.
pub(super) struct Writer<W> {
    pub(super) on: W,
    pub(super) opts: RunOptions,
    pub(super) summary: Summary,
    /// The big file whose parts are being put back together.
    pub(super) joining: Option<Joining>,
}

impl<W: FnMut(Event<'_>) -> io::Result<()>> Writer<W> {
    /// Writes the next piece of one file's output.
    pub(super) fn piece(&mut self, input: &Input, buf: &mut Vec<u8>) -> io::Result<()> {
        if buf.len() < PIECE {
            return Ok(());
        }
        let r = FileResult { out: std::mem::take(buf), partial: true, ..FileResult::default() };
        let res = (self.on)(Event::File(input, &r));
        // The buffer is reused: its capacity is what a piece needs.
        *buf = r.out;
        buf.clear();
        res
    }

    /// Writes the rest of one file's output, with its totals.
    pub(super) fn file(&mut self, input: &Input, r: FileResult) -> io::Result<()> {
        let s = &mut self.summary;
        s.files += 1;
        s.bytes += r.bytes;
        if r.compressed.is_some() {
            s.compressed_files += 1;
            s.compressed_bytes += r.compressed_bytes;
            s.decompressed_bytes += r.bytes;
        }
        s.urls += r.urls;
        s.failing += r.failing;
        s.findings += r.findings;
        s.binary += u64::from(r.binary);
        s.errors += u64::from(r.error.is_some() || r.unread);
        if let Some(m) = r.mail {
            s.mail += m;
        }
        if let Some(w) = r.warc {
            s.warc += w;
        }
        s.tally.merge(&r.tally);
        (self.on)(Event::File(input, &r))
    }

    pub(super) fn problem(&mut self, e: &InputError) -> io::Result<()> {
        self.summary.errors += u64::from(e.fatal);
        (self.on)(Event::Problem(e))
    }

    pub(super) fn done<E: Emit>(
        &mut self,
        done: Done,
        sifter: &Sifter,
        emit: &E,
        scratch: &mut Scratch,
    ) -> io::Result<()> {
        match done {
            Done::Whole(input, r) => self.file(&input, r),
            Done::Problem(e) => self.problem(&e),
            Done::Part(big, index, p) => {
                let (input, part) = (&*big.input, big.parts[index]);
                let mut j = self.joining.take().unwrap_or_default();
                // A panic in a printer or a rescan is the file's, as in
                // `process`: reported with its path, and the run goes on.
                let opts = self.opts;
                let added = catch_unwind(AssertUnwindSafe(|| {
                    j.add(part, p, input, sifter, emit, opts, scratch)
                }));
                if let Err(panic) = added {
                    *scratch = Scratch::default();
                    j.result.error.get_or_insert(panic_message(&panic));
                }
                if part.last {
                    return self.file(input, j.result);
                }
                let res = self.piece(input, &mut j.result.out);
                self.joining = Some(j);
                res
            }
        }
    }

    /// Writes `buf`, output of `part` of the big file being joined, now
    /// that the part is next in order: after what the parts before left
    /// unwritten. Declines (false) when the part's own scan is not what
    /// will be kept: the part before ran over its start, or failed.
    pub(super) fn stream(
        &mut self,
        input: &Input,
        part: Part,
        buf: &mut Vec<u8>,
    ) -> io::Result<bool> {
        let j = self.joining.get_or_insert_with(Joining::default);
        if j.result.error.is_some() || j.resume > part.start {
            return Ok(false);
        }
        if !j.result.out.is_empty() {
            let r = FileResult {
                out: std::mem::take(&mut j.result.out),
                partial: true,
                ..FileResult::default()
            };
            let res = (self.on)(Event::File(input, &r));
            j.result.out = r.out;
            j.result.out.clear();
            res?;
        }
        self.piece(input, buf)?;
        Ok(true)
    }
}
