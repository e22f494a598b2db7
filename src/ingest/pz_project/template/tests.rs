use super::*;

fn call(name: &str, args: Vec<Lit>, named: Vec<NamedArg>, line: u32) -> Piece {
    Piece::Code(Expr::Call {
        name: name.into(),
        args,
        named,
        line,
    })
}

fn s(x: &str) -> Lit {
    Lit::Str(x.into())
}

#[test]
fn calls_and_text_split() {
    let t = parse_template("select * from {{ source('crm', \"orders\") }}\nwhere x").unwrap();
    assert_eq!(
        t.pieces,
        vec![
            Piece::Text("select * from ".into()),
            call("source", vec![s("crm"), s("orders")], vec![], 1),
            Piece::Text("\nwhere x".into()),
        ]
    );
}

#[test]
fn named_arguments_carry_their_lines() {
    let t = parse_template(
        "-- c\nINSERT INTO {{ sink('lake', 'out',\n  strategy: 'merge',\n  keys: ['id'], n: 2, f: 1.5, b: true, z: null,\n  columns: { id: 'bigint', \"x\": 'varchar', } ) }} select 1",
    )
    .unwrap();
    let Piece::Code(Expr::Call { named, line, .. }) = &t.pieces[1] else {
        panic!("call expected: {:?}", t.pieces)
    };
    assert_eq!(*line, 2);
    let names: Vec<(&str, u32)> = named.iter().map(|n| (n.name.as_str(), n.line)).collect();
    assert_eq!(
        names,
        [
            ("strategy", 3),
            ("keys", 4),
            ("n", 4),
            ("f", 4),
            ("b", 4),
            ("z", 4),
            ("columns", 5)
        ]
    );
    assert_eq!(named[1].value, Lit::Array(vec![s("id")]));
    assert_eq!(named[2].value, Lit::Int(2));
    assert_eq!(
        named[6].value,
        Lit::Object(vec![("id".into(), s("bigint")), ("x".into(), s("varchar"))])
    );
}

#[test]
fn whitespace_control_trims_neighbours() {
    let t = parse_template("a  \n  {{- this -}}  \n b").unwrap();
    assert_eq!(t.pieces[0], Piece::Text("a".into()));
    assert_eq!(t.pieces[2], Piece::Text("b".into()));
    let t = parse_template("a  \n  {{~ this ~}}  \n b").unwrap();
    assert_eq!(t.pieces[0], Piece::Text("a  \n".into()));
    assert_eq!(t.pieces[2], Piece::Text(" b".into()));
    let t = parse_template("x {%{ {{ raw }} }%} y").unwrap();
    assert_eq!(
        t.pieces,
        vec![
            Piece::Text("x ".into()),
            Piece::Text(" {{ raw }} ".into()),
            Piece::Text(" y".into())
        ]
    );
}

#[test]
fn comments_and_empty_blocks_output_nothing() {
    let t = parse_template("a{{ # note }}b{{## multi\nline ##}}c{{ }}").unwrap();
    assert_eq!(
        t.pieces,
        vec![
            Piece::Text("a".into()),
            Piece::Text("b".into()),
            Piece::Text("c".into())
        ]
    );
}

#[test]
fn unsupported_scriban_is_a_gap() {
    for (text, line) in [
        ("{{ if x }}y{{ end }}", 1),
        ("{{ var('a') | string.upcase }}", 1),
        ("\n{{ a = 1 }}", 2),
        ("{{ ref 'x' }}", 1),
        ("{{ source('a', 'b'", 1),
        ("{{ x\ny }}", 2),
        ("{{ f(g('a')) }}", 1),
        ("{{ f({a: {b: 1}}) }}", 1),
    ] {
        let err = parse_template(text).unwrap_err();
        assert_eq!(err.line, line, "{text}: {}", err.reason);
    }
}

#[test]
fn lines_count_across_blocks() {
    let t = parse_template("a\nb\n{{ ref('x') }}\n\n{{ var(\n'y') }}").unwrap();
    let lines: Vec<u32> = t
        .pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Code(Expr::Call { line, .. }) => Some(*line),
            _ => None,
        })
        .collect();
    assert_eq!(lines, [3, 5]);
}
