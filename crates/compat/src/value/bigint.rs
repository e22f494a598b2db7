//! Just enough unsigned big-integer arithmetic to give Python's exact `int`
//! for YAML integers beyond 64 bits (base 2, 8, 16 and sexagesimal) and to
//! compare huge integral floats with integers.

/// Little-endian base-2^32 limbs, no trailing zero limbs (zero is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BigUint {
    limbs: Vec<u32>,
}

impl BigUint {
    pub(crate) fn from_u64(v: u64) -> Self {
        let mut b = BigUint {
            limbs: vec![v as u32, (v >> 32) as u32],
        };
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    /// `self = self * m + a`.
    pub(crate) fn mul_add_small(&mut self, m: u32, a: u32) {
        let mut carry = a as u64;
        for limb in &mut self.limbs {
            let v = (*limb as u64) * (m as u64) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
        self.trim();
    }

    pub(crate) fn add(&mut self, other: &BigUint) {
        let mut carry = 0u64;
        let n = self.limbs.len().max(other.limbs.len());
        self.limbs.resize(n, 0);
        for (i, limb) in self.limbs.iter_mut().enumerate() {
            let v = *limb as u64 + *other.limbs.get(i).unwrap_or(&0) as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
    }

    /// `self * other`, schoolbook (operands here are small).
    pub(crate) fn mul(&self, other: &BigUint) -> BigUint {
        if self.limbs.is_empty() || other.limbs.is_empty() {
            return BigUint::default();
        }
        let mut out = vec![0u32; self.limbs.len() + other.limbs.len()];
        for (i, &a) in self.limbs.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in other.limbs.iter().enumerate() {
                let v = out[i + j] as u64 + (a as u64) * (b as u64) + carry;
                out[i + j] = v as u32;
                carry = v >> 32;
            }
            let mut k = i + other.limbs.len();
            while carry != 0 {
                let v = out[k] as u64 + carry;
                out[k] = v as u32;
                carry = v >> 32;
                k += 1;
            }
        }
        let mut b = BigUint { limbs: out };
        b.trim();
        b
    }

    pub(crate) fn shl(&self, bits: u32) -> BigUint {
        if self.limbs.is_empty() {
            return BigUint::default();
        }
        let words = (bits / 32) as usize;
        let rem = bits % 32;
        let mut out = vec![0u32; words];
        if rem == 0 {
            out.extend_from_slice(&self.limbs);
        } else {
            let mut carry = 0u32;
            for &l in &self.limbs {
                out.push((l << rem) | carry);
                carry = l >> (32 - rem);
            }
            if carry != 0 {
                out.push(carry);
            }
        }
        BigUint { limbs: out }
    }

    pub(crate) fn cmp_mag(&self, other: &BigUint) -> std::cmp::Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }

    /// `self - other`, for `self >= other`.
    pub(crate) fn sub(&self, other: &BigUint) -> BigUint {
        let mut out = self.limbs.clone();
        let mut borrow = 0i64;
        for (i, limb) in out.iter_mut().enumerate() {
            let v = *limb as i64 - *other.limbs.get(i).unwrap_or(&0) as i64 - borrow;
            if v < 0 {
                *limb = (v + (1i64 << 32)) as u32;
                borrow = 1;
            } else {
                *limb = v as u32;
                borrow = 0;
            }
        }
        let mut b = BigUint { limbs: out };
        b.trim();
        b
    }

    pub(crate) fn to_u64(&self) -> Option<u64> {
        match self.limbs.len() {
            0 => Some(0),
            1 => Some(self.limbs[0] as u64),
            2 => Some(self.limbs[0] as u64 | ((self.limbs[1] as u64) << 32)),
            _ => None,
        }
    }

    pub(crate) fn bits(&self) -> u64 {
        match self.limbs.last() {
            None => 0,
            Some(&top) => (self.limbs.len() as u64 - 1) * 32 + (32 - top.leading_zeros() as u64),
        }
    }

    /// Decimal digits, no leading zeros ("0" for zero).
    pub(crate) fn to_decimal(&self) -> String {
        if self.limbs.is_empty() {
            return "0".to_string();
        }
        const CHUNK: u64 = 1_000_000_000;
        let mut limbs = self.limbs.clone();
        let mut chunks: Vec<u32> = Vec::new();
        while !limbs.is_empty() {
            let mut rem = 0u64;
            for limb in limbs.iter_mut().rev() {
                let cur = (rem << 32) | *limb as u64;
                *limb = (cur / CHUNK) as u32;
                rem = cur % CHUNK;
            }
            chunks.push(rem as u32);
            while limbs.last() == Some(&0) {
                limbs.pop();
            }
        }
        let mut s = String::with_capacity(chunks.len() * 9);
        let mut iter = chunks.iter().rev();
        if let Some(first) = iter.next() {
            s.push_str(&first.to_string());
        }
        for c in iter {
            s.push_str(&format!("{c:09}"));
        }
        s
    }
}

/// A finite float's magnitude as `mantissa * 2**exp` (the IEEE fields, subnormals included;
/// the mantissa is not reduced).
pub(crate) fn float_parts(f: f64) -> (u64, i32) {
    let bits = f.abs().to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), biased - 1075)
    }
}

/// `value * 2**exp` written out in decimal, for an integral float's exact
/// value beyond 64 bits.
pub(crate) fn float_integer_decimal(f: f64) -> String {
    let (mantissa, e) = float_parts(f);
    let mag = if e >= 0 {
        BigUint::from_u64(mantissa).shl(e as u32)
    } else {
        BigUint::from_u64(mantissa >> (-e).min(63) as u32)
    };
    let digits = mag.to_decimal();
    if f < 0.0 && digits != "0" {
        format!("-{digits}")
    } else {
        digits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trip() {
        let mut b = BigUint::default();
        for d in "123456789012345678901234567890".bytes() {
            b.mul_add_small(10, (d - b'0') as u32);
        }
        assert_eq!(b.to_decimal(), "123456789012345678901234567890");
        assert_eq!(BigUint::from_u64(0).to_decimal(), "0");
        assert_eq!(
            BigUint::from_u64(u64::MAX).to_decimal(),
            u64::MAX.to_string()
        );
        assert_eq!(
            float_integer_decimal(2f64.powi(70)),
            "1180591620717411303424"
        );
        assert_eq!(float_integer_decimal(-1e20), "-100000000000000000000");
    }
}
