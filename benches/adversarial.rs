//! Linear time on hostile input: each adversarial shape of
//! `tests/support/adversarial.rs` (a million `<URL:` openers, one line
//! without a line break, 10^6 parentheses after `http://`, `%` runs, `-`
//! at the end of every line of a wrapper, a line of `:`, `URL:URL:...`,
//! `<a:<a:...`, ...) at 1 MB and at 10 MB, through `Sifter::extract` and
//! through the streaming `Sifter::extract_reader`.
//!
//! First a table: each case and path at 10 KB, 100 KB, 1 MB and 10 MB, and
//! the time ratio of the last two sizes run (10 MB / 1 MB when all ran):
//! about 10 is linear, about 100 quadratic. A case stops growing early
//! when its output outgrows the input (quadratic memory: the next size
//! could exhaust the machine) or when its last step was over 30 times
//! slower and the next would pass a minute; the table says which. Every
//! run checks its answer, so a fast wrong scanner fails instead of looking
//! good. Then criterion times the cases that ran at 10 MB, at 1 MB and 10
//! MB, in bytes per second.
//!
//! ```text
//! cargo bench --bench adversarial                 # table, then criterion
//! ADVERSARIAL_TABLE_ONLY=1 cargo bench --bench adversarial
//! cargo bench --bench adversarial -- --quick      # criterion's short mode
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use urlsift::extract::{Extracted, Options, Scratch, Sifter};

#[path = "../tests/support/adversarial.rs"]
mod adversarial;

const MB: usize = 1_000_000;

/// A step that would take longer than this, at quadratic growth, is not run.
const SLOW: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    Extract,
    Stream,
}

fn run(sifter: &Sifter, path: Path, input: &[u8]) -> Vec<Extracted> {
    match path {
        Path::Extract => sifter.extract(input),
        Path::Stream => {
            let mut out = Vec::new();
            let mut scratch = Scratch::default();
            sifter.extract_reader(input, &mut scratch, |e| out.push(e)).expect("a slice reads");
            out
        }
    }
}

/// The fastest of a few runs (one if it is slow), after checking the
/// answer; and the bytes of output of one run.
fn time(sifter: &Sifter, path: Path, case: &adversarial::Case, input: &[u8]) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut out = 0;
    for i in 0..3 {
        let t = Instant::now();
        let got = run(sifter, path, black_box(input));
        let took = t.elapsed();
        if let Err(e) = (case.check)(input, &got) {
            panic!("{} ({path:?}, {} bytes): wrong answer: {e}", case.name, input.len());
        }
        out = adversarial::output_bytes(&got);
        drop(got);
        best = best.min(took);
        if i == 0 && took > Duration::from_millis(500) {
            break;
        }
    }
    (best, out)
}

/// Sizes tried, in order; each is run only if the one before gives no
/// reason to fear it (see [`table`]).
const SIZES: [(usize, &str); 4] =
    [(MB / 100, "10 KB"), (MB / 10, "100 KB"), (MB, "1 MB"), (10 * MB, "10 MB")];

/// Prints the ratio table; returns the (case, path) pairs that ran at
/// 10 MB, for criterion.
///
/// Sizes go up by ten while it is safe: a case stops growing when its
/// output outgrows the input ([`adversarial::OUTPUT_PER_BYTE`]: quadratic
/// memory, the next size could exhaust the machine), or when its last step
/// took over thirty times as long and the next, at a hundred times, would
/// pass a minute (quadratic time).
fn table(sifter: &Sifter) -> Vec<(usize, Path)> {
    let mut fast = Vec::new();
    println!(
        "{:<30} {:<8} {:>10} {:>10} {:>10} {:>10} {:>7}",
        "case", "path", "10 KB", "100 KB", "1 MB", "10 MB", "ratio"
    );
    for (i, case) in adversarial::cases().iter().enumerate() {
        for path in [Path::Extract, Path::Stream] {
            let mut times: Vec<Duration> = Vec::new();
            let mut note = String::new();
            for (k, (size, label)) in SIZES.iter().enumerate() {
                let input = (case.make)(*size);
                let (t, out) = time(sifter, path, case, &input);
                times.push(t);
                if out > adversarial::OUTPUT_PER_BYTE * input.len() {
                    note = format!("stopped: {} bytes of output for {label} of input", out);
                    break;
                }
                let step = if k > 0 { t.as_secs_f64() / times[k - 1].as_secs_f64() } else { 1.0 };
                if k + 1 < SIZES.len()
                    && step > 30.0
                    && t.as_secs_f64() * 100.0 > SLOW.as_secs_f64()
                {
                    note = format!(
                        "stopped: x{step:.0} from the size before; the next would take minutes"
                    );
                    break;
                }
            }
            let cells: Vec<String> = (0..SIZES.len())
                .map(|k| times.get(k).map_or("-".to_string(), |t| format!("{t:.2?}")))
                .collect();
            let n = times.len();
            let ratio = if n >= 2 {
                times[n - 1].as_secs_f64() / times[n - 2].as_secs_f64()
            } else {
                f64::NAN
            };
            let over = if n >= 2 {
                format!("{} / {}", SIZES[n - 1].1, SIZES[n - 2].1)
            } else {
                String::new()
            };
            println!(
                "{:<30} {:<8} {:>10} {:>10} {:>10} {:>10} {:>7.1}  {over}  {note}",
                case.name,
                format!("{path:?}"),
                cells[0],
                cells[1],
                cells[2],
                cells[3],
                ratio
            );
            if n == SIZES.len() {
                fast.push((i, path));
            }
        }
    }
    println!("(ratio of the last two sizes run: linear ~10, quadratic ~100)");
    fast
}

fn main() {
    let sifter = Sifter::new(Options::default());
    let fast = table(&sifter);
    if std::env::var_os("ADVERSARIAL_TABLE_ONLY").is_some() {
        return;
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let cases = adversarial::cases();
    for (i, path) in fast {
        let case = &cases[i];
        let mut group = c.benchmark_group(format!("adversarial/{}/{path:?}", case.name));
        for (label, size) in [("1MB", MB), ("10MB", 10 * MB)] {
            let input = (case.make)(size);
            group.throughput(Throughput::Bytes(input.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(label), &input, |b, input| {
                b.iter(|| run(&sifter, path, black_box(input)).len())
            });
        }
        group.finish();
    }
    c.final_summary();
}
