//! A slice's work split over the cores: contiguous parts, each on a thread of its own,
//! their results in order. Large prints make a few passes over every table or directory
//! (a `stat` or a digest each) that are independent item by item.

/// `each` over `items` in contiguous parts side by side, the parts' results in order:
/// as many parts as there are cores (at most `max_parts`), none smaller than `min_part`
/// items, so a short slice is one part on the calling thread. A panic in a part is the
/// caller's.
pub fn in_parts<T: Sync, R: Send>(
    items: &[T],
    min_part: usize,
    max_parts: usize,
    each: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    in_threads(items, min_part, cores.min(max_parts), each)
}

/// [`in_parts`] on `threads` parts whatever the cores: for work that mostly waits on the
/// disk (a walk of directories not in the cache), where more threads than cores keep more
/// reads under way.
pub fn in_threads<T: Sync, R: Send>(
    items: &[T],
    min_part: usize,
    threads: usize,
    each: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let parts = threads.min(items.len().div_ceil(min_part.max(1))).max(1);
    if parts == 1 {
        return vec![each(items)];
    }
    let per = items.len().div_ceil(parts);
    std::thread::scope(|scope| {
        let running: Vec<_> = items
            .chunks(per)
            .map(|part| scope.spawn(|| each(part)))
            .collect();
        running
            .into_iter()
            .map(|r| r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_items_in_order() {
        let items: Vec<u32> = (0..10_000).collect();
        let sums = in_parts(&items, 1000, 8, |part| part.to_vec());
        assert_eq!(sums.concat(), items, "every item once, in order");
        assert_eq!(in_parts(&items[..10], 1000, 8, <[u32]>::len), vec![10]);
        assert_eq!(in_parts(&[] as &[u32], 1000, 8, <[u32]>::len), vec![0]);
        assert_eq!(in_parts(&items, 1, 1, <[u32]>::len), vec![10_000]);
    }
}
