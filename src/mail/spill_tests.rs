//! Messages spilled by the splitter (read from the input file, or from the
//! spool of a stream) give exactly what the same messages held whole give:
//! URLs, positions, excerpts, problems, counts and line totals.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};

use super::split::{Mode, Splitter};
use super::*;
use crate::extract::Options;

type Got = (Vec<MailUrl>, Vec<MailProblem>, MailStats, u64);

fn run<R: Read>(split: &mut Splitter<R>, kind: InputKind) -> Got {
    let sifter = Sifter::new(Options { excerpts: true, ..Default::default() });
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let mut stats =
        messages(&sifter, split, kind, &mut |u| urls.push(u), &mut |p| problems.push(p)).unwrap();
    stats.bytes = split.bytes_read();
    (urls, problems, stats, split.lines_done())
}

fn same(got: &Got, want: &Got, what: &str) {
    if let Some(i) = (0..want.0.len()).find(|&i| got.0.get(i) != Some(&want.0[i])) {
        panic!("{what}: URL #{i}: {:?}\nwant {:?}", got.0.get(i), want.0[i]);
    }
    assert_eq!(got.0.len(), want.0.len(), "{what}");
    assert_eq!(got.1, want.1, "{what}");
    assert_eq!((got.2, got.3), (want.2, want.3), "{what}");
}

fn file(bytes: &[u8]) -> File {
    let mut f = tempfile::tempfile().unwrap();
    f.write_all(bytes).unwrap();
    f
}

const ENV: &str = "From a@example.org Thu Jan  1 00:00:00 1970";

/// Lines of URL-dense quoted-printable text with `>From ` quoting (one
/// `>` goes), lines that only look quoted (all stay), soft breaks inside
/// URLs and findings, `n` times; `nl` is the line break.
fn body(n: usize, nl: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "Go to http://www.example.org/x{i}.html or <URL:ftp://ftp.example.net/{nl}  \
             pub/f{i}.txt> caf=E9 http://b.example/a%zz{i}{nl}\
             >From http://q.example:99999/{i} quoted{nl}\
             >>>From <URL:http://deep.example/{i}%>{nl}\
             >Fromage http://cheese.example:0/ x>From http://mid.example/%{nl}\
             >{nl}>>>{nl}>Fro{nl}From the start http://a.example/{i}=3D=\
             {nl}?q=3D{i}{nl}"
        ));
    }
    s
}

/// An mbox of small messages around big ones read every way: a multipart
/// (CRLF) with a big quoted-printable part, a skipped image, small parts,
/// preamble and epilogue; a big plain message; a big one quoted in its
/// header block and one with a nested multipart (both read back whole);
/// a big message that is only blank lines (no message); a multipart with
/// a big preamble and epilogue; a big multipart nested in one; a big
/// attached message, in a part and as a whole body; a big UTF-16 part.
fn mbox() -> Vec<u8> {
    // The big part is over `mime::STREAM_MIN`, as a streamed part must be.
    let qp_crlf = body(3_600, "\r\n");
    let plain = body(2_500, "\n");
    let small = |i: usize| {
        format!(
            "{ENV}\nSubject: small {i} http://subj.example:99999/\nMessage-ID: <{i}@x>\n\n\
             hello http://small.example/{i}/%zz\n>From http://sq.example/%\n\n"
        )
    };
    let multi = format!(
        "{ENV}\r\nFrom: a@example.org\r\nSubject: see http://subj.example:99999/\r\n\
         Message-ID: <m@x>\r\nContent-Type: multipart/mixed; boundary=\"zz\"\r\n\r\n\
         preamble http://pre.example/%zz\r\n>From http://preq.example/%\r\n--zz\r\n\
         Content-Type: text/plain\r\n\r\nsmall http://small.example:99999/\r\n\
         >From http://partq.example/%\r\n--zz\r\n\
         Content-Type: text/html; charset=iso-8859-1\r\n\
         Content-Transfer-Encoding: quoted-printable\r\nX-Url: http://hdr.example/%zz\r\n\
         \r\n{qp_crlf}\r\n--zz\r\nContent-Type: image/png\r\n\r\n{zeros}\r\n--zz\r\n\r\n\
         no header http://nh.example/%zz\r\n--zz--\r\nepilogue http://epi.example:1/%\r\n\
         >From http://epiq.example/%\r\n\r\n",
        zeros = "A".repeat(400_000),
    );
    let leaf = format!(
        "{ENV}\nFrom: b@example.org\nMessage-ID: <leaf@x>\nContent-Type: text/plain; \
         charset=latin1\nContent-Transfer-Encoding: quoted-printable\n\n{plain}\n"
    );
    let quoted_head = format!("{ENV}\nSubject: q\n>From http://hq.example/%\n\n{plain}\n");
    let nested = format!(
        "{ENV}\nSubject: n\nContent-Type: multipart/mixed; boundary=a\n\n--a\n\
         Content-Type: multipart/alternative; boundary=b\n\n--b\n\n{plain}\n--b--\n--a--\n\n"
    );
    let blank = format!("{ENV}\n{}", "\n".repeat(700_000));
    // A big preamble and epilogue (scanned as streams), small parts.
    let outside = format!(
        "{ENV}\nSubject: o\nContent-Type: multipart/mixed; boundary=c\n\n{plain}--c\n\n\
         in http://in.example/%\n--c--\n{plain}\n"
    );
    // A big part that is a multipart itself (streamed), with its own
    // preamble and epilogue (outside its parts, inside the message's).
    let deep = format!(
        "{ENV}\nSubject: d\nContent-Type: multipart/mixed; boundary=a\n\npre http://p.example/%\n\
         --a\n\nsmall http://s.example/%\n--a\nContent-Type: multipart/alternative; boundary=b\n\n\
         inner pre http://ip.example/%\n--b\nContent-Type: text/plain\n\
         Content-Transfer-Encoding: quoted-printable\n\n{qp_crlf}\n--b\n\n\
         tiny http://t.example/%\n--b--\ninner epi http://ie.example/%\n>From http://x.example/%\n\
         --a--\nepi http://e.example/%\n\n"
    );
    // A big attached message (read as it stands) holding a big part.
    let attached = format!(
        "{ENV}\nSubject: a\nContent-Type: multipart/mixed; boundary=a\n\n--a\n\
         Content-Type: message/rfc822\n\nFrom: x@example.org\nSubject: in http://in.example:0/\n\
         Content-Type: multipart/mixed; boundary=b\n\n--b\n\
         Content-Transfer-Encoding: quoted-printable\n\n{qp_crlf}\n--b--\nafter http://af.example/%\n\
         --a--\n\n"
    );
    // A whole body that is an attached message; a big part in a
    // multi-byte charset (read back whole).
    let whole_attached = format!(
        "{ENV}\nSubject: w\nContent-Type: message/rfc822\n\nSubject: in http://w.example:0/\n\
         Content-Transfer-Encoding: quoted-printable\n\n{qp_crlf}\n"
    );
    let utf16 = format!(
        "{ENV}\nContent-Type: multipart/mixed; boundary=a\n\n--a\n\
         Content-Type: text/plain; charset=utf-16le\n\n{plain}\n--a--\n\n"
    );
    let mut out = String::new();
    let all = [
        &multi,
        &leaf,
        &quoted_head,
        &nested,
        &blank,
        &outside,
        &deep,
        &attached,
        &whole_attached,
        &utf16,
    ];
    for (i, m) in all.into_iter().enumerate() {
        out.push_str(&small(i));
        out.push_str(m);
    }
    out.push_str(&small(9));
    out.push_str(&plain[..5_000]);
    out.into_bytes()
}

/// Spilled from this size; a message is sure to be spilled when it is
/// longer than this and two read chunks, which the buffer may hold when
/// its end is found.
const MIN: u64 = 100_000;

#[test]
fn spilled_mbox_messages_read_as_held_ones() {
    let input = mbox();
    let want = run(&mut Splitter::new(&input[..], Mode::Mbox), InputKind::Mbox);
    assert!(want.0.len() > 20_000, "{}", want.0.len());
    assert!(want.0.iter().any(|u| u.url.findings.iter().any(|f| f.excerpt.is_some())));
    assert!(want.0.iter().any(|u| u.url.url.starts_with(b"http://q.example")));
    // From the input file, then from the spool of a pipe.
    let f = file(&input);
    let mut reader = f.try_clone().unwrap();
    reader.seek(SeekFrom::Start(0)).unwrap();
    let source = Some(f.try_clone().unwrap());
    let held = big::HELD.with(|h| h.get());
    let got = run(&mut Splitter::new(reader, Mode::Mbox).spill(MIN, source), InputKind::Mbox);
    same(&got, &want, "from the file");
    // The quoted header block, the nested multipart with a small big part,
    // the one without a header block and the UTF-16 part are read back
    // whole; the others streamed.
    assert_eq!(big::HELD.with(|h| h.get()) - held, 4);
    for step in [100_000, 4093] {
        let mut split = Splitter::new(Trickle(&input, step), Mode::Mbox).spill(MIN, None);
        same(&run(&mut split, InputKind::Mbox), &want, &format!("spooled, step {step}"));
    }
}

/// Cut into parts as threads read them: each part's spilled messages are
/// read from the file at their offsets, and the shifted parts join into
/// what one pass gives.
#[test]
fn spilled_messages_of_parts_read_as_held_ones() {
    let input = mbox();
    let want = run(&mut Splitter::new(&input[..], Mode::Mbox), InputKind::Mbox);
    let f = file(&input);
    let size = input.len() as u64;
    // Big messages only leave a few targets a separator in reach.
    let mut inner = 0;
    for part in [40_000, 300_000, 1_500_000] {
        let cuts = message_cuts(&f, InputKind::Mbox, size, part).unwrap();
        inner += cuts.len() - 2;
        parts(&f, &cuts, &want);
    }
    assert!(inner >= 3, "{inner}");
}

fn parts(f: &File, cuts: &[u64], want: &Got) {
    let size = *cuts.last().unwrap();
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let (mut lines, mut messages_before) = (0, 0);
    let mut stats = MailStats::default();
    for w in cuts.windows(2) {
        let mut reader = f.try_clone().unwrap();
        reader.seek(SeekFrom::Start(w[0])).unwrap();
        let source = Some(f.try_clone().unwrap());
        let mut split =
            Splitter::starting_at(reader.take(w[1] - w[0]), Mode::Mbox, w[0]).spill(MIN, source);
        let (u, p, s, l) = run(&mut split, InputKind::Mbox);
        urls.extend(u.into_iter().map(|mut u| {
            u.shift(lines, messages_before);
            u
        }));
        problems.extend(p.into_iter().map(|mut p| {
            p.shift(lines, messages_before);
            p
        }));
        lines += l;
        messages_before += s.messages;
        stats += MailStats { bytes: 0, ..s };
    }
    stats.bytes = size;
    same(&(urls, problems, stats, lines), want, &format!("parts {cuts:?}"));
}

/// A single message from a pipe (standard input) is spooled and read as a
/// file is, and an rnews batch is still split by its counts.
#[test]
fn spooled_single_messages_read_as_held_ones() {
    let input = mbox();
    // The multipart alone, without its envelope, and with one.
    let start = memchr::memmem::find(&input, b"From: a@example.org\r\n").unwrap();
    let end = memchr::memmem::find(&input, b"epiq.example/%\r\n").unwrap() + 16;
    let with_envelope = &input[start - ENV.len() - 2..end];
    for msg in [&input[start..end], with_envelope] {
        let want = run(&mut Splitter::new(msg, Mode::Single), InputKind::Message);
        assert!(want.0.len() > 10_000);
        let held = big::HELD.with(|h| h.get());
        let mut split = Splitter::new(Trickle(msg, 65_536), Mode::Single).spill(MIN, None);
        same(&run(&mut split, InputKind::Message), &want, "single");
        assert_eq!(big::HELD.with(|h| h.get()), held, "streamed");
    }
    // A first line longer than the spill size: no envelope, so the
    // message is spilled before it ends (a 700 KB header line, a line
    // that is no header at all).
    let long = "x".repeat(700_000);
    let hostile = [
        format!("Subject: http://a.example/{long}\nFrom: b@example.org\n\nhttp://b.example/%\n"),
        format!("{long}\n\nhttp://c.example/\n"),
    ];
    for msg in &hostile {
        let want = run(&mut Splitter::new(msg.as_bytes(), Mode::Single), InputKind::Message);
        let mut split = Splitter::new(Trickle(msg.as_bytes(), 4093), Mode::Single).spill(MIN, None);
        same(&run(&mut split, InputKind::Message), &want, "long first line");
        // The spill size and two read chunks, not the 700 KB line.
        assert!(split.buffer_len() < 600_000, "{}", split.buffer_len());
    }
    // Big articles, the second starting in the middle of a line (the
    // first has no final line break), then a count that ends inside an
    // article: the rest is one message.
    let art = format!("Path: a\nNewsgroups: x\n\n{}", body(2_500, "\n"));
    let cut = art.trim_end();
    let batch =
        format!("#! rnews {}\n{cut}#! rnews {}\n{art}#! rnews 5\n{art}", cut.len(), art.len());
    let want = run(&mut Splitter::new(batch.as_bytes(), Mode::Single), InputKind::News);
    assert_eq!(want.2.messages, 4);
    let held = big::HELD.with(|h| h.get());
    for step in [1 << 20, 4093] {
        let mut split =
            Splitter::new(Trickle(batch.as_bytes(), step), Mode::Single).spill(MIN, None);
        same(&run(&mut split, InputKind::News), &want, "rnews");
    }
    // Every big one, the rest after the count that leads nowhere too,
    // read from the spool.
    assert_eq!(big::HELD.with(|h| h.get()), held);
}

/// The splitter holds a read chunk and a line, not the spilled message,
/// and spools exactly its bytes.
#[test]
fn spilling_holds_no_message() {
    let input = mbox();
    let mut split = Splitter::new(Trickle(&input, 1 << 20), Mode::Mbox).spill(MIN, None);
    let mut big = 0;
    let mut held = Splitter::new(&input[..], Mode::Mbox);
    while let Some(m) = split.next_message().unwrap() {
        let h = held.next_message().unwrap().unwrap();
        assert_eq!(
            (m.offset, m.line, m.column, m.envelope),
            (h.offset, h.line, h.column, h.envelope)
        );
        if let Some(s) = m.spilled {
            big += 1;
            let mut copy = vec![0; s.len as usize];
            part::read_full_at(s.file, &mut copy, s.at).unwrap();
            assert_eq!(copy, h.bytes);
        } else {
            assert_eq!(m.bytes, h.bytes);
        }
        assert!(split.buffer_len() < 2 << 20, "{}", split.buffer_len());
    }
    assert!(held.next_message().unwrap().is_none());
    // The blank one too: its envelope makes it a message (with no header).
    assert_eq!(big, 10);
    assert_eq!(split.lines_done(), held.lines_done());
}
