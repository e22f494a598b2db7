//! The cheapest tree joining the requested tables: a directed Steiner tree (an
//! arborescence) rooted at the first requested table over the join graph, each edge priced
//! by the way it is walked ([`super::cost`]).
//!
//! The search is local. The shortest-path heuristic of Takahashi and Matsuyama (start from
//! the root, join the nearest requested table not yet joined by its cheapest path, repeat)
//! gives a first tree and its cost `C`. A table can be in a tree costing at most `1.1 C`
//! only if the cheapest walk from the root to it plus the cheapest walk from it to some
//! requested table costs at most that, so bounded Dijkstra searches from the root and back
//! from each requested table find the region every tree worth reporting lies in (the best
//! and the alternatives within 10% of it). In that region the tree is found **exactly** by
//! the Dreyfus-Wagner dynamic programme when it is small enough (3^t x region size at most
//! [`EXACT_BUDGET`], t the requested tables beside the root); above that the heuristic's
//! tree is kept, which costs at most twice the best (the planner then says "heuristic").

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Mutex;

use super::graph::{Graph, Step};
use crate::error::Recover;

/// The most work (3^t x region size) an exact search may take.
pub const EXACT_BUDGET: usize = 3_000_000;

/// How a tree was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The cheapest tree in the region (Dreyfus-Wagner).
    Exact,
    /// The shortest-path heuristic's tree (at most twice the cheapest).
    Heuristic,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Heuristic => "heuristic",
        }
    }
}

/// One hop of a tree: `from` walks `step` (out of `from`'s arc list) to `step.to`.
#[derive(Debug, Clone, Copy)]
pub struct TreeArc {
    pub from: usize,
    pub step: Step,
}

impl TreeArc {
    pub fn to(&self) -> usize {
        self.step.to as usize
    }
}

/// A tree rooted at the root, its hops pointing away from it.
#[derive(Debug, Clone)]
pub struct Tree {
    pub arcs: Vec<TreeArc>,
    pub cost: f64,
}

impl Tree {
    /// Its edges, sorted: what tells two trees apart.
    pub fn edge_set(&self) -> Vec<u32> {
        let mut edges: Vec<u32> = self.arcs.iter().map(|a| a.step.edge).collect();
        edges.sort_unstable();
        edges
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry(f64, u32);

impl Eq for Entry {}

impl Ord for Entry {
    // A min-heap on cost, then on node (so equal costs settle in a fixed order).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .total_cmp(&self.0)
            .then_with(|| other.1.cmp(&self.1))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What a search may not use.
pub struct Limits<'a> {
    /// Nodes no tree may pass through, by node.
    pub blocked: &'a [bool],
    /// Edges no tree may use, sorted.
    pub banned: &'a [u32],
}

impl Limits<'_> {
    fn open(&self, v: usize) -> bool {
        !self.blocked.get(v).copied().unwrap_or(false)
    }

    fn usable(&self, s: &Step) -> bool {
        self.banned.binary_search(&s.edge).is_err() && self.open(s.to as usize)
    }
}

/// Which way a search walks and how far.
#[derive(Clone, Copy)]
struct Reach<'a> {
    /// Towards the sources (each step priced the way it is walked towards them), not out.
    reverse: bool,
    /// The largest cost settled.
    bound: f64,
    /// Only these nodes, when given.
    inside: Option<&'a [bool]>,
}

/// Dijkstra's scratch over the whole graph, reset by what it touched. A dropped one is
/// kept for the next plan over a graph of its size ([`SPARE`]): at 100,000 tables making
/// it afresh cost a quarter of a settled plan.
pub struct Search {
    dist: Vec<f64>,
    /// The node and step that reached each node (u32::MAX: a source).
    pred: Vec<(u32, Step)>,
    touched: Vec<u32>,
    heap: BinaryHeap<Entry>,
}

const NO_STEP: Step = Step {
    to: u32::MAX,
    edge: u32::MAX,
    up: true,
    cost: 0.0,
    back: 0.0,
};

/// Searches dropped, reset, for plans to take again (at most [`SPARES`]: one per plan
/// under way at once is the most that helps).
static SPARE: Mutex<Vec<Search>> = Mutex::new(Vec::new());
const SPARES: usize = 4;

impl Search {
    /// A search over a graph of `n` nodes: a spare one of that size when there is one.
    pub fn new(n: usize) -> Search {
        let spare = {
            let mut spare = SPARE.lock().recover();
            let at = spare.iter().position(|s| s.dist.len() == n);
            at.map(|at| spare.swap_remove(at))
        };
        spare.unwrap_or_else(|| Search {
            dist: vec![f64::INFINITY; n],
            pred: vec![(u32::MAX, NO_STEP); n],
            touched: Vec::new(),
            heap: BinaryHeap::new(),
        })
    }

    fn reset(&mut self) {
        for &v in &self.touched {
            self.dist[v as usize] = f64::INFINITY;
            self.pred[v as usize] = (u32::MAX, NO_STEP);
        }
        self.touched.clear();
        self.heap.clear();
    }

    fn seed(&mut self, v: usize) {
        if self.dist[v] > 0.0 {
            if self.dist[v].is_infinite() {
                self.touched.push(v as u32);
            }
            self.dist[v] = 0.0;
            self.heap.push(Entry(0.0, v as u32));
        }
    }

    /// Settle nodes from `sources` as `how` says, until `stop` accepts a settled node
    /// (which is returned).
    fn run(
        &mut self,
        g: &Graph,
        sources: &[usize],
        how: Reach,
        limits: &Limits,
        stop: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        let Reach {
            reverse,
            bound,
            inside,
        } = how;
        self.reset();
        for &s in sources {
            self.seed(s);
        }
        while let Some(Entry(d, v)) = self.heap.pop() {
            let v = v as usize;
            if d > self.dist[v] {
                continue;
            }
            if stop(v) {
                return Some(v);
            }
            for s in g.arcs(v) {
                let w = s.to as usize;
                if !limits.usable(s) || inside.is_some_and(|r| !r[w]) {
                    continue;
                }
                let nd = d + if reverse { s.back } else { s.cost };
                if nd > bound + 1e-9 || nd >= self.dist[w] {
                    continue;
                }
                if self.dist[w].is_infinite() {
                    self.touched.push(w as u32);
                }
                self.dist[w] = nd;
                self.pred[w] = (v as u32, *s);
                self.heap.push(Entry(nd, w as u32));
            }
        }
        None
    }

    pub fn dist(&self, v: usize) -> f64 {
        self.dist[v]
    }

    /// Whether every node is as a new search has it (what a spare must be).
    #[cfg(test)]
    fn is_clear(&self) -> bool {
        self.touched.is_empty()
            && self.heap.is_empty()
            && self.dist.iter().all(|d| d.is_infinite())
            && self.pred.iter().all(|(from, _)| *from == u32::MAX)
    }

    /// The nodes this search reached, with their costs.
    pub fn reached(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.touched
            .iter()
            .map(|&v| (v as usize, self.dist[v as usize]))
    }
}

impl Drop for Search {
    fn drop(&mut self) {
        if self.dist.is_empty() {
            return;
        }
        // Reset outside the lock: only what this search touched.
        self.reset();
        let mut spare = SPARE.lock().recover();
        if spare.len() >= SPARES {
            return;
        }
        // Its parts move into a spare (no search is dropped under the lock).
        spare.push(Search {
            dist: std::mem::take(&mut self.dist),
            pred: std::mem::take(&mut self.pred),
            touched: std::mem::take(&mut self.touched),
            heap: std::mem::take(&mut self.heap),
        });
    }
}

/// The shortest-path heuristic from `root`, within `inside` (when given): the tree, or
/// the requested tables it could not reach.
pub fn heuristic(
    g: &Graph,
    search: &mut Search,
    root: usize,
    terminals: &[usize],
    limits: &Limits,
    inside: Option<&[bool]>,
) -> Result<Tree, Vec<usize>> {
    let mut in_tree: Vec<usize> = vec![root];
    let mut remaining: Vec<usize> = terminals.iter().copied().filter(|&t| t != root).collect();
    let mut arcs = Vec::new();
    let mut cost = 0.0;
    while !remaining.is_empty() {
        let how = Reach {
            reverse: false,
            bound: f64::INFINITY,
            inside,
        };
        let found = search.run(g, &in_tree, how, limits, &mut |v| remaining.contains(&v));
        let Some(t) = found else {
            return Err(remaining);
        };
        let mut path = Vec::new();
        let mut v = t;
        while search.dist[v] > 0.0 {
            let (from, step) = search.pred[v];
            path.push(TreeArc {
                from: from as usize,
                step,
            });
            v = from as usize;
        }
        for a in path.into_iter().rev() {
            cost += a.step.cost;
            in_tree.push(a.to());
            arcs.push(a);
        }
        remaining.retain(|r| !in_tree.contains(r));
    }
    Ok(Tree { arcs, cost })
}

/// The nodes a tree costing at most `bound` can pass through: reached from the root, and
/// reaching some requested table, within `bound` in all.
pub fn region(
    g: &Graph,
    search: &mut Search,
    root: usize,
    terminals: &[usize],
    bound: f64,
    limits: &Limits,
) -> Vec<usize> {
    let out = Reach {
        reverse: false,
        bound,
        inside: None,
    };
    search.run(g, &[root], out, limits, &mut |_| false);
    let from_root: HashMap<usize, f64> = search.reached().collect();
    let mut to_some: HashMap<usize, f64> = HashMap::new();
    for &t in terminals.iter().filter(|&&t| t != root) {
        let back = Reach {
            reverse: true,
            ..out
        };
        search.run(g, &[t], back, limits, &mut |_| false);
        for (v, d) in search.reached() {
            let slot = to_some.entry(v).or_insert(f64::INFINITY);
            *slot = slot.min(d);
        }
    }
    let mut nodes: Vec<usize> = from_root
        .iter()
        .filter(|(v, d)| to_some.get(v).is_some_and(|r| *d + r <= bound + 1e-9))
        .map(|(v, _)| *v)
        .chain(terminals.iter().copied())
        .chain([root])
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

/// Whether the exact search over `region_size` nodes for `terminals` requested tables
/// beside the root fits [`EXACT_BUDGET`].
pub fn exact_fits(terminals: usize, region_size: usize) -> bool {
    let mut work = region_size;
    for _ in 0..terminals {
        work = work.saturating_mul(3);
    }
    terminals <= 20 && work <= EXACT_BUDGET
}

/// How (mask, node)'s best tree was made.
#[derive(Debug, Clone, Copy)]
enum Choice {
    None,
    /// The node is the requested table itself.
    Leaf,
    /// Two trees at the node, over `sub` and the rest.
    Split(u32),
    /// One step to a neighbour (local index), whose tree continues.
    Walk(u32, Step),
}

/// Dreyfus-Wagner over the `region` (sorted global nodes): the cheapest arborescence from
/// `root` reaching every terminal, or `None` when the region does not connect them.
pub fn exact(
    g: &Graph,
    region: &[usize],
    root: usize,
    terminals: &[usize],
    limits: &Limits,
) -> Option<Tree> {
    let terms: Vec<usize> = terminals.iter().copied().filter(|&t| t != root).collect();
    let local = |v: usize| region.binary_search(&v).ok();
    let m = region.len();
    let t = terms.len();
    if t == 0 {
        return Some(Tree {
            arcs: Vec::new(),
            cost: 0.0,
        });
    }
    // Each local node's steps inside the region.
    let steps: Vec<Vec<(u32, Step)>> = region
        .iter()
        .map(|&v| {
            g.arcs(v)
                .iter()
                .filter(|s| limits.usable(s))
                .filter_map(|s| local(s.to as usize).map(|w| (w as u32, *s)))
                .collect()
        })
        .collect();
    let full = (1usize << t) - 1;
    let mut best = vec![f64::INFINITY; (full + 1) * m];
    let mut how = vec![Choice::None; (full + 1) * m];
    for (i, &term) in terms.iter().enumerate() {
        let at = local(term)?;
        best[(1 << i) * m + at] = 0.0;
        how[(1 << i) * m + at] = Choice::Leaf;
        spread(&steps, &mut best, &mut how, 1 << i, m);
    }
    for mask in 1..=full {
        if mask.count_ones() < 2 {
            continue;
        }
        let low = mask & mask.wrapping_neg();
        let rest = mask ^ low;
        for v in 0..m {
            let mut s = rest;
            loop {
                let sub = s | low;
                if sub != mask {
                    let c = best[sub * m + v] + best[(mask ^ sub) * m + v];
                    if c < best[mask * m + v] {
                        best[mask * m + v] = c;
                        how[mask * m + v] = Choice::Split(sub as u32);
                    }
                }
                if s == 0 {
                    break;
                }
                s = (s - 1) & rest;
            }
        }
        spread(&steps, &mut best, &mut how, mask, m);
    }
    let r = local(root)?;
    if best[full * m + r].is_infinite() {
        return None;
    }
    let mut arcs = Vec::new();
    let mut stack = vec![(full, r)];
    while let Some((mask, v)) = stack.pop() {
        match how[mask * m + v] {
            Choice::None | Choice::Leaf => {}
            Choice::Split(sub) => {
                stack.push((sub as usize, v));
                stack.push((mask ^ sub as usize, v));
            }
            Choice::Walk(w, mut step) => {
                step.to = region[w as usize] as u32;
                arcs.push(TreeArc {
                    from: region[v],
                    step,
                });
                stack.push((mask, w as usize));
            }
        }
    }
    Some(tidy(root, &arcs, terminals))
}

/// Regions up to this many nodes settle by scanning for the nearest node rather than
/// through a heap: the same order (cost, then node), with no heap to fill and empty for
/// each of the `2^t` masks of each of a plan's exact searches.
const SCANNED_REGION: usize = 16;

/// Settle `mask`'s trees outwards: a node one step before a node with a tree has a tree
/// through that step. Nodes settle by cost, then by node, whichever way they are found.
fn spread(steps: &[Vec<(u32, Step)>], best: &mut [f64], how: &mut [Choice], mask: usize, m: usize) {
    let row = mask * m;
    let (best, how) = (&mut best[row..row + m], &mut how[row..row + m]);
    settle_all(steps, best, how, m <= SCANNED_REGION);
}

/// [`spread`] over one mask's row, by scanning (at most [`SCANNED_REGION`] nodes) or
/// through a heap.
fn settle_all(steps: &[Vec<(u32, Step)>], best: &mut [f64], how: &mut [Choice], scan: bool) {
    let m = best.len();
    if scan {
        let mut settled = [false; SCANNED_REGION];
        loop {
            let mut nearest: Option<(f64, usize)> = None;
            for (v, &d) in best.iter().enumerate() {
                if !settled[v] && d.is_finite() && nearest.is_none_or(|(n, _)| d < n) {
                    nearest = Some((d, v));
                }
            }
            let Some((d, u)) = nearest else { break };
            settled[u] = true;
            settle(steps, best, how, d, u, |_, _| {});
        }
        return;
    }
    let mut heap: BinaryHeap<Entry> = (0..m)
        .filter(|&v| best[v].is_finite())
        .map(|v| Entry(best[v], v as u32))
        .collect();
    while let Some(Entry(d, u)) = heap.pop() {
        let u = u as usize;
        if d > best[u] {
            continue;
        }
        settle(steps, best, how, d, u, |nd, x| {
            heap.push(Entry(nd, x as u32))
        });
    }
}

/// `u` settled at cost `d`: each neighbour x of u that reaches u by the step back more
/// cheaply than it has a tree so far takes that step (`improved` hears of each).
fn settle(
    steps: &[Vec<(u32, Step)>],
    best: &mut [f64],
    how: &mut [Choice],
    d: f64,
    u: usize,
    mut improved: impl FnMut(f64, usize),
) {
    for &(x, s) in &steps[u] {
        let x = x as usize;
        let nd = d + s.back;
        if nd < best[x] {
            best[x] = nd;
            let forward = Step {
                to: u as u32,
                edge: s.edge,
                up: !s.up,
                cost: s.back,
                back: s.cost,
            };
            how[x] = Choice::Walk(u as u32, forward);
            improved(nd, x);
        }
    }
}

/// A set of hops made a tree: the cheapest walks from the root through them, less every
/// branch that ends at no requested table. (A dynamic programme's parts may meet at a
/// node twice when costs tie; this keeps one way in.)
pub fn tidy(root: usize, arcs: &[TreeArc], terminals: &[usize]) -> Tree {
    let mut out_of: HashMap<usize, Vec<TreeArc>> = HashMap::new();
    for a in arcs {
        out_of.entry(a.from).or_default().push(*a);
    }
    let mut dist: HashMap<usize, f64> = HashMap::from([(root, 0.0)]);
    let mut pred: HashMap<usize, TreeArc> = HashMap::new();
    let mut heap = BinaryHeap::from([Entry(0.0, root as u32)]);
    while let Some(Entry(d, v)) = heap.pop() {
        let v = v as usize;
        if d > dist[&v] {
            continue;
        }
        for a in out_of.get(&v).into_iter().flatten() {
            let nd = d + a.step.cost;
            if dist.get(&a.to()).is_none_or(|&old| nd < old) {
                dist.insert(a.to(), nd);
                pred.insert(a.to(), *a);
                heap.push(Entry(nd, a.to() as u32));
            }
        }
    }
    // Keep the walks to the requested tables.
    let mut kept: Vec<TreeArc> = Vec::new();
    let mut seen: Vec<usize> = vec![root];
    for &t in terminals {
        let mut v = t;
        while !seen.contains(&v) {
            let Some(a) = pred.get(&v) else { break };
            seen.push(v);
            kept.push(*a);
            v = a.from;
        }
    }
    let cost = kept.iter().map(|a| a.step.cost).sum();
    Tree { arcs: kept, cost }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small generator (no dependency): the same numbers every run.
    struct Numbers(u64);

    impl Numbers {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn scanning_settles_a_region_as_the_heap_does() {
        let mut numbers = Numbers(27);
        for _ in 0..2_000 {
            let m = 1 + numbers.below(SCANNED_REGION as u64) as usize;
            // Steps cost whole numbers, so equal costs (and the tie-break by node) occur.
            let steps: Vec<Vec<(u32, Step)>> = (0..m)
                .map(|_| {
                    (0..numbers.below(4))
                        .map(|i| {
                            let x = numbers.below(m as u64) as u32;
                            let step = Step {
                                to: 0,
                                edge: i as u32,
                                up: numbers.below(2) == 0,
                                cost: 1.0 + numbers.below(3) as f64,
                                back: 1.0 + numbers.below(3) as f64,
                            };
                            (x, step)
                        })
                        .collect()
                })
                .collect();
            let start: Vec<f64> = (0..m)
                .map(|_| match numbers.below(3) {
                    0 => numbers.below(5) as f64,
                    _ => f64::INFINITY,
                })
                .collect();
            let (mut scanned, mut heaped) = (start.clone(), start);
            let mut scanned_how = vec![Choice::None; m];
            let mut heaped_how = vec![Choice::None; m];
            settle_all(&steps, &mut scanned, &mut scanned_how, true);
            settle_all(&steps, &mut heaped, &mut heaped_how, false);
            assert_eq!(scanned, heaped);
            assert_eq!(format!("{scanned_how:?}"), format!("{heaped_how:?}"));
        }
    }

    #[test]
    fn a_search_taken_again_is_as_clear_as_a_new_one() {
        // A size no other test's graph has, so this test takes back its own spare.
        const NODES: usize = 7_919;
        let mut used = Search::new(NODES);
        used.seed(3);
        used.dist[4] = 1.5;
        used.touched.push(4);
        used.pred[4] = (3, NO_STEP);
        used.heap.push(Entry(1.5, 4));
        drop(used);
        let again = Search::new(NODES);
        // The spare, not a new one (which has no room in its lists yet), and clear.
        assert!(again.touched.capacity() > 0 && again.heap.capacity() > 0);
        assert_eq!(again.dist.len(), NODES);
        assert!(again.is_clear());
    }
}
