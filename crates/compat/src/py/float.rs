//! Float text and rounding the way CPython's `repr(float)` and `round` do:
//! both rest on David Gay's correctly rounded conversions, reproduced here
//! with Rust's own shortest/correctly-rounded conversions plus exact decimal
//! arithmetic.

use super::PyException;
use crate::value::bigint::float_parts;
use crate::value::Value;

/// `repr(float)`: the shortest digits that round-trip, laid out positionally
/// when the decimal exponent is in [-4, 16), else in exponent form.
pub(super) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    let (digits, decpt) = shortest_digits(f.abs());
    let mut out = String::with_capacity(digits.len() + 8);
    if f < 0.0 {
        out.push('-');
    }
    // CPython (format_float_short, mode 'r'): value = 0.DIGITS * 10**decpt.
    if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(digits.len().min(1));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let exp = decpt - 1;
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            out.push('0');
        }
        out.push_str(&a.to_string());
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..(-decpt) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let d = decpt as usize;
        if d >= digits.len() {
            out.push_str(&digits);
            for _ in digits.len()..d {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..d]);
            out.push('.');
            out.push_str(&digits[d..]);
        }
    }
    out
}

/// The shortest round-tripping decimal digits of a finite positive `f` and
/// `decpt` with `f == 0.DIGITS * 10**decpt`. Among equally short strings
/// Gay's dtoa (mode 0) picks the nearest, and on an exact tie the one with an
/// even last digit.
fn shortest_digits(f: f64) -> (String, i32) {
    // `{:e}` is Rust's shortest round-trip formatting, e.g. "1.2345e-7"; it
    // also picks the nearest, but breaks exact ties upwards.
    let s = format!("{f:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let decpt = exp.parse::<i32>().unwrap_or(0) + 1;
    match tie_even_alternative(f, &digits, decpt) {
        Some(better) => better,
        None => (digits, decpt),
    }
}

/// If `f` lies exactly halfway between `digits` (odd last digit) and its
/// even neighbour of the same length, and that neighbour also round-trips,
/// the neighbour, as dtoa would choose it.
fn tie_even_alternative(f: f64, digits: &str, decpt: i32) -> Option<(String, i32)> {
    let last = *digits.as_bytes().last()?;
    if (last - b'0').is_multiple_of(2) {
        return None;
    }
    // A tie needs f's exact decimal expansion to have len(digits)+1 <= 18
    // significant digits: with f = m * 2**e (m odd), impossible for e < -25
    // (m * 5**-e >= 5**26 > 10**18) or e > 82 (5**j | m needs j <= 22, and
    // 2**(e-j) must divide an 18-digit number). Skip the exact arithmetic.
    let (m, e) = odd_mantissa(f);
    if m == 0 || !(-25..=82).contains(&e) {
        return None;
    }
    let (exact, k) = exact_decimal(f);
    // exact * 10**-k, as significant digits and the power of ten of the last.
    let sig = exact.trim_end_matches('0');
    let q = (exact.len() - sig.len()) as i64 - i64::from(k);
    let n = digits.len() as i64;
    if sig.len() as i64 != n + 1 || q != i64::from(decpt) - n - 1 || !sig.ends_with('5') {
        return None;
    }
    let sig_head = &sig[..sig.len() - 1];
    let mut candidate = digits.as_bytes().to_vec();
    if sig_head == digits {
        // f == digits + 0.5 ulp-of-last-digit: the even one is digits + 1.
        increment_decimal(&mut candidate);
    } else {
        // f == digits - 0.5: the even one is digits - 1 (no borrow: last is odd).
        if let Some(l) = candidate.last_mut() {
            *l -= 1;
        }
        let mut check = candidate.clone();
        check.push(b'5');
        if check != sig.as_bytes() {
            return None;
        }
    }
    // A carry may lengthen it ("99" -> "100"); trailing zeros are not digits.
    let grew = candidate.len() as i32 - digits.len() as i32;
    let cand = String::from_utf8(candidate).ok()?;
    let cand = cand.trim_end_matches('0').to_string();
    let cand_decpt = decpt + grew;
    let back: f64 = format!("0.{cand}e{cand_decpt}").parse().ok()?;
    (back == f).then_some((cand, cand_decpt))
}

/// `|f| == m * 2**e` with `m` odd (`m == 0` for zero).
fn odd_mantissa(f: f64) -> (u64, i32) {
    let (m, e) = float_parts(f);
    if m == 0 {
        return (0, 0);
    }
    let tz = m.trailing_zeros();
    (m >> tz, e + tz as i32)
}

/// `repr` of a float inside `json.dumps` (allow_nan=True).
pub(super) fn json_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        float_repr(f)
    }
}

/// A non-negative integer in base 10^9 limbs, little-endian: just enough
/// arithmetic to expand a double into its exact decimal digits.
struct BigDec(Vec<u32>);

const LIMB: u64 = 1_000_000_000;

impl BigDec {
    fn from_u64(mut v: u64) -> BigDec {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % LIMB) as u32);
            v /= LIMB;
        }
        BigDec(limbs)
    }

    /// `self *= m` for `m < 2**32`.
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = (t % LIMB) as u32;
            carry = t / LIMB;
        }
        while carry > 0 {
            self.0.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
    }

    /// `self *= base**exp`, in chunks that keep each factor below 2**32.
    fn mul_pow(&mut self, base: u32, chunk_exp: u32, mut exp: u32) {
        let chunk = base.pow(chunk_exp);
        while exp >= chunk_exp {
            self.mul_small(chunk);
            exp -= chunk_exp;
        }
        if exp > 0 {
            self.mul_small(base.pow(exp));
        }
    }

    fn to_decimal(&self) -> String {
        let mut out = String::new();
        for (i, limb) in self.0.iter().rev().enumerate() {
            if i == 0 {
                out.push_str(&limb.to_string());
            } else {
                out.push_str(&format!("{limb:09}"));
            }
        }
        if out.is_empty() {
            out.push('0');
        }
        out
    }
}

/// The exact value of a finite `|x|` as `(D, k)` with `|x| == D / 10**k`,
/// `D` in decimal without leading zeros.
fn exact_decimal(x: f64) -> (String, u32) {
    // Fewer factors to multiply: m * 2**e with m odd.
    let (m, e) = odd_mantissa(x);
    if m == 0 {
        return ("0".to_string(), 0);
    }
    let mut d = BigDec::from_u64(m);
    if e >= 0 {
        d.mul_pow(2, 31, e as u32);
        (d.to_decimal(), 0)
    } else {
        // m / 2**k == m * 5**k / 10**k
        let k = e.unsigned_abs();
        d.mul_pow(5, 13, k);
        (d.to_decimal(), k)
    }
}

/// CPython's NDIGITS_MAX / NDIGITS_MIN for float.__round__.
const NDIGITS_MAX: i32 = 323;
const NDIGITS_MIN: i32 = -308;

/// `round(x, ndigits)`; `Err` is Python's OverflowError.
pub fn try_py_round(x: f64, ndigits: i32) -> Result<f64, PyException> {
    if !x.is_finite() || ndigits > NDIGITS_MAX {
        return Ok(x);
    }
    if ndigits < NDIGITS_MIN {
        return Ok(0.0 * x);
    }
    let (d, k) = exact_decimal(x);
    let k = k as i64;
    let n = i64::from(ndigits);
    if n >= k {
        return Ok(x); // already exact at that many decimals
    }
    // Drop the last (k - n) decimal digits of D, rounding half to even.
    let drop = (k - n) as usize;
    let digits = d.as_bytes();
    let q: String = if drop > digits.len() {
        "0".to_string()
    } else {
        let (head, tail) = digits.split_at(digits.len() - drop);
        let mut q: Vec<u8> = if head.is_empty() {
            vec![b'0']
        } else {
            head.to_vec()
        };
        let first = tail.first().copied().unwrap_or(b'0');
        let rest_nonzero = tail.iter().skip(1).any(|&c| c != b'0');
        let last_odd = q.last().is_some_and(|&c| (c - b'0') % 2 == 1);
        let up = first > b'5' || (first == b'5' && (rest_nonzero || last_odd));
        if up {
            increment_decimal(&mut q);
        }
        String::from_utf8(q).unwrap_or_default()
    };
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Rust's parse, like _Py_dg_strtod, is correctly rounded.
    let rounded: f64 = format!("{sign}{q}e{}", -n).parse().unwrap_or(f64::NAN);
    if rounded.is_infinite() {
        return Err(PyException::new(
            "OverflowError",
            "rounded value too large to represent",
        ));
    }
    Ok(rounded)
}

fn increment_decimal(q: &mut Vec<u8>) {
    for c in q.iter_mut().rev() {
        if *c == b'9' {
            *c = b'0';
        } else {
            *c += 1;
            return;
        }
    }
    q.insert(0, b'1');
}

/// `round(x)` with no ndigits: the nearest int, ties to even, as a Python
/// int (`Value::Int`, or `Value::BigInt` beyond 64 bits). Python raises
/// `OverflowError` for infinities and `ValueError` for NaN.
pub fn py_round_int(x: f64) -> Result<Value, PyException> {
    if x.is_nan() {
        return Err(PyException::new(
            "ValueError",
            "cannot convert float NaN to integer",
        ));
    }
    if x.is_infinite() {
        return Err(PyException::new(
            "OverflowError",
            "cannot convert float infinity to integer",
        ));
    }
    let r = x.round_ties_even();
    // -2**63 <= r < 2**63: exactly representable as i64.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        return Ok(Value::Int(r as i64));
    }
    let (d, _) = exact_decimal(r); // integral, so k == 0
    let sign = if r < 0.0 { "-" } else { "" };
    Ok(Value::BigInt(format!("{sign}{d}")))
}
