//! Orders pz's compiler imposes: `OrderErrors` (file, line, then position), the Kahn
//! topological sort by (kind rank, name, id) with its PZ0202 cycle message, and
//! `FlowComponents` (undirected connected components and their labels).

use std::cmp::Ordering;
use std::collections::{BTreeSet, VecDeque};

use crate::error::pz::{PzCode, PzError};
use compat::dotnet::ordinal_cmp;

use super::Node;

/// `DagCompiler.OrderErrors`: by file (none first), line (none first), then original order.
pub fn order_errors(mut errors: Vec<PzError>) -> Vec<PzError> {
    errors.sort_by(|a, b| {
        let file = match (&a.file, &b.file) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => ordinal_cmp(x, y),
        };
        file.then(a.line.cmp(&b.line))
    });
    errors
}

fn compare(a: &Node, b: &Node) -> Ordering {
    a.kind
        .rank()
        .cmp(&b.kind.rank())
        .then_with(|| ordinal_cmp(&a.name, &b.name))
        .then_with(|| ordinal_cmp(&a.id, &b.id))
}

/// Kahn's algorithm over `nodes` (whose `depends_on` are indexes into it); `Err` names a cycle.
pub fn topological(nodes: &[Node]) -> Result<Vec<usize>, PzError> {
    let mut indegree: Vec<usize> = nodes.iter().map(|n| n.depends_on.len()).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for &d in &n.depends_on {
            children[d].push(i);
        }
    }
    struct Ready<'a>(&'a Node, usize);
    impl PartialEq for Ready<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.1 == other.1
        }
    }
    impl Eq for Ready<'_> {}
    impl Ord for Ready<'_> {
        fn cmp(&self, other: &Self) -> Ordering {
            compare(self.0, other.0).then(self.1.cmp(&other.1))
        }
    }
    impl PartialOrd for Ready<'_> {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
    let mut ready: BTreeSet<Ready> = nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| indegree[*i] == 0)
        .map(|(i, n)| Ready(n, i))
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(Ready(_, i)) = ready.pop_first() {
        order.push(i);
        for &kid in &children[i] {
            indegree[kid] -= 1;
            if indegree[kid] == 0 {
                ready.insert(Ready(&nodes[kid], kid));
            }
        }
    }
    if order.len() == nodes.len() {
        return Ok(order);
    }
    let remainder: Vec<usize> = (0..nodes.len()).filter(|i| indegree[*i] > 0).collect();
    Err(cycle_error(nodes, &remainder))
}

/// `BuildCycleError`: from the first remaining node by (kind, name), follow the
/// alphabetically first remaining dependency until a node repeats.
fn cycle_error(nodes: &[Node], remainder: &[usize]) -> PzError {
    let start = *remainder
        .iter()
        .min_by(|a, b| {
            nodes[**a]
                .kind
                .rank()
                .cmp(&nodes[**b].kind.rank())
                .then_with(|| ordinal_cmp(&nodes[**a].name, &nodes[**b].name))
        })
        .expect("a cycle leaves nodes");
    let mut path: Vec<usize> = Vec::new();
    let mut current = start;
    while !path.contains(&current) {
        path.push(current);
        current = *nodes[current]
            .depends_on
            .iter()
            .filter(|d| remainder.contains(d))
            .min_by(|a, b| ordinal_cmp(&nodes[**a].name, &nodes[**b].name))
            .expect("a remaining node depends on a remaining node");
    }
    let from = path.iter().position(|p| *p == current).unwrap_or(0);
    let mut names: Vec<&str> = path[from..]
        .iter()
        .map(|i| nodes[*i].name.as_str())
        .collect();
    names.push(&nodes[current].name);
    PzError {
        code: PzCode::Cycle,
        message: format!("dependency cycle: {}", names.join(" -> ")),
        file: None,
        line: None,
        next_step: None,
    }
}

/// `FlowComponents.Compute` over nodes already in their final order: each component's
/// label, components in the order of their first member.
pub fn flow_labels(nodes: &[Node]) -> Vec<String> {
    let mut neighbors: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for &d in &n.depends_on {
            neighbors[i].push(d);
            neighbors[d].push(i);
        }
    }
    let mut visited = vec![false; nodes.len()];
    let mut labels = Vec::new();
    for seed in 0..nodes.len() {
        if visited[seed] {
            continue;
        }
        visited[seed] = true;
        let mut members = vec![seed];
        let mut queue = VecDeque::from([seed]);
        while let Some(at) = queue.pop_front() {
            for &next in &neighbors[at] {
                if !visited[next] {
                    visited[next] = true;
                    members.push(next);
                    queue.push_back(next);
                }
            }
        }
        labels.push(label(nodes, &members));
    }
    labels
}

fn label(nodes: &[Node], members: &[usize]) -> String {
    use super::NodeKind::{Check, SinkWrite};
    let mut names: Vec<&str> = members
        .iter()
        .filter(|m| nodes[**m].kind == SinkWrite)
        .map(|m| nodes[*m].name.as_str())
        .collect();
    if names.is_empty() {
        let mut fed = vec![false; nodes.len()];
        for m in members.iter().filter(|m| nodes[**m].kind != Check) {
            for &d in &nodes[*m].depends_on {
                fed[d] = true;
            }
        }
        names = members
            .iter()
            .filter(|m| nodes[**m].kind != Check && !fed[**m])
            .map(|m| nodes[*m].name.as_str())
            .collect();
    }
    names.sort_by(|a, b| ordinal_cmp(a, b));
    names.join(" + ")
}

#[cfg(test)]
mod tests {
    use super::super::{Node, NodeKind};
    use super::*;

    fn node(name: &str, kind: NodeKind, deps: &[usize]) -> Node {
        Node {
            id: format!("{name}-id"),
            id_known: true,
            kind,
            name: name.into(),
            depends_on: deps.to_vec(),
            dataset: None,
        }
    }

    #[test]
    fn kahn_orders_by_kind_then_name() {
        use NodeKind::*;
        let nodes = vec![
            node("z", Pipeline, &[2]),
            node("lake.z", SinkWrite, &[0]),
            node("src_b", SourceLoad, &[]),
            node("a", Pipeline, &[]),
            node("check_z", Check, &[0]),
        ];
        let order = topological(&nodes).unwrap();
        let names: Vec<&str> = order.iter().map(|i| nodes[*i].name.as_str()).collect();
        assert_eq!(names, ["src_b", "a", "z", "check_z", "lake.z"]);
        let ordered: Vec<Node> = order.iter().map(|i| nodes[*i].clone()).collect();
        let remap: Vec<usize> = {
            let mut r = vec![0; nodes.len()];
            for (new, old) in order.iter().enumerate() {
                r[*old] = new;
            }
            r
        };
        let ordered: Vec<Node> = ordered
            .into_iter()
            .map(|mut n| {
                n.depends_on = n.depends_on.iter().map(|d| remap[*d]).collect();
                n
            })
            .collect();
        // The check does not label the flow; the sink does. `a` stands alone.
        assert_eq!(flow_labels(&ordered), ["lake.z", "a"]);
    }

    #[test]
    fn cycles_name_only_the_loop() {
        use NodeKind::Pipeline;
        // "0x" sorts first and only feeds into the a <-> b loop.
        let nodes = vec![
            node("0x", Pipeline, &[1]),
            node("a", Pipeline, &[2]),
            node("b", Pipeline, &[1]),
        ];
        let e = topological(&nodes).unwrap_err();
        assert_eq!(e.message, "dependency cycle: a -> b -> a");
        let own = vec![node("self", Pipeline, &[0])];
        assert_eq!(
            topological(&own).unwrap_err().message,
            "dependency cycle: self -> self"
        );
    }

    #[test]
    fn errors_order_by_file_then_line() {
        let e = |file: Option<&str>, line: Option<u32>, m: &str| PzError {
            code: PzCode::Cycle,
            message: m.into(),
            file: file.map(str::to_string),
            line,
            next_step: None,
        };
        let sorted = order_errors(vec![
            e(Some("b"), Some(2), "1"),
            e(Some("a"), None, "2"),
            e(None, Some(9), "3"),
            e(Some("b"), Some(1), "4"),
            e(Some("a"), None, "5"),
        ]);
        let messages: Vec<&str> = sorted.iter().map(|x| x.message.as_str()).collect();
        assert_eq!(messages, ["3", "2", "5", "4", "1"]);
    }
}
