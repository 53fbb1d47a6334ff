#!/usr/bin/env python3
"""Writes one input of about SIZE megabytes in one shape, for the memory
test (.ci/memtest.sh): memory must not grow with the input's size.

usage: memgen.py SHAPE SIZE_MB PATH
shapes: text (URL-dense plain text), mbox (many small messages),
base64 (one message, one big base64 text part in a multipart),
qp (one message, one big quoted-printable text part), plain (one big
plain message), mboxbig (an mbox of small messages with one huge
quoted-printable message, `>From ` quoting included, in the middle)."""
import base64
import sys

shape, size, path = sys.argv[1], int(sys.argv[2]) << 20, sys.argv[3]


def lines(n):
    """About n bytes of URL-dense prose, in 1 MB blocks."""
    block = []
    i = 0
    while sum(map(len, block)) < (1 << 20):
        block.append(
            f"See http://www.example.org/docs/page{i}.html and "
            f"<URL:ftp://ftp.example.net/pub/file{i}.txt> for item {i}.\n"
        )
        i += 1
    block = "".join(block).encode()
    done = 0
    while done < n:
        yield block
        done += len(block)


HEAD = (
    b"From: a@example.org\nTo: b@example.org\nSubject: big\n"
    b"Message-ID: <big@example.org>\nMIME-Version: 1.0\n"
)

with open(path, "wb") as f:
    if shape == "text":
        for b in lines(size):
            f.write(b)
    elif shape in ("mbox", "mboxbig"):
        n, done = 0, 0
        big = shape == "mboxbig"
        while done < size:
            if big and n == 1000:
                # The huge one: most of the input.
                f.write(b"From a@example.org Mon Jan  2 10:00:00 1995\n" + HEAD
                        + b"Content-Type: text/plain\n"
                        b"Content-Transfer-Encoding: quoted-printable\n\n")
                for b in lines(size * 8 // 10):
                    b = b.replace(b"=", b"=3D").replace(b"\nSee ", b"\n>From ", 100)
                    f.write(b)
                    done += len(b)
                f.write(b"\n")
            msg = (
                f"From a@example.org Mon Jan  2 10:00:00 1995\n"
                f"From: a@example.org\nSubject: m{n}\nMessage-ID: <{n}@example.org>\n\n"
                f"See http://www.example.org/m/{n}.html and news:{n + 1}@example.org\n"
                + "Some prose that fills the message a little more.\n" * 30
                + "\n"
            ).encode()
            f.write(msg)
            done += len(msg)
            n += 1
    elif shape == "base64":
        f.write(HEAD + b'Content-Type: multipart/mixed; boundary="b"\n\n--b\n'
                b"Content-Type: text/plain; charset=us-ascii\n"
                b"Content-Transfer-Encoding: base64\n\n")
        for b in lines(size * 3 // 4):
            enc = base64.encodebytes(b)  # 76-character lines
            f.write(enc)
        f.write(b"--b\nContent-Type: text/plain\n\nhttp://www.example.org/after\n--b--\n")
    elif shape == "qp":
        f.write(HEAD + b"Content-Type: text/plain; charset=iso-8859-1\n"
                b"Content-Transfer-Encoding: quoted-printable\n\n")
        for b in lines(size * 9 // 10):
            out = []
            for line in b.split(b"\n")[:-1]:
                line = line.replace(b"=", b"=3D") + b" caf=E9"
                while len(line) > 75:
                    cut = 75
                    while line[cut - 1:cut] == b"=" or line[cut - 2:cut - 1] == b"=":
                        cut -= 1
                    out.append(line[:cut] + b"=")
                    line = line[cut:]
                out.append(line)
            f.write(b"\n".join(out) + b"\n")
    elif shape == "plain":
        f.write(HEAD + b"Content-Type: text/plain\n\n")
        for b in lines(size):
            f.write(b)
    else:
        sys.exit(f"unknown shape {shape}")
