//! The walk over a statement: each query's CTEs, each SELECT's FROM built into a scope
//! (tables resolved against the print, subqueries walked for the columns they yield, join
//! constraints checked as they come), then every expression of the SELECT checked in that
//! scope. Findings collect on the walk; nothing here fails.

use std::sync::Arc;

use sqlparser::ast::{
    AssignmentTarget, Expr, FromTable, Ident, JoinConstraint, JoinOperator, ObjectName,
    ObjectNamePart, Query, Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr, Spanned,
    Statement, TableAlias, TableFactor, TableObject, TableWithJoins, UpdateTableFromKind,
    WildcardAdditionalOptions,
};
use sqlparser::tokenizer::Span;

use super::catalog::{Catalog, Domains};
use super::exprs;
use super::joins::{self, JoinSide};
use super::scope::{self, Columns, FromList, Lookup, OutCol, Relation, Scope, Source as RelSource};
use super::source::Source;
use super::tables::{self, TableMatch};
use super::{Finding, Kind};
use crate::query::plan_joins::graph::Graph;

/// CTEs visible where a query is read, innermost WITH first.
pub struct Ctes<'c> {
    list: Vec<(String, Arc<Columns>)>,
    parent: Option<&'c Ctes<'c>>,
}

impl Ctes<'_> {
    fn find(&self, stored: &str) -> Option<Arc<Columns>> {
        std::iter::successors(Some(self), |c| c.parent).find_map(|c| {
            c.list
                .iter()
                .rev()
                .find(|(n, _)| n == stored)
                .map(|(_, cols)| cols.clone())
        })
    }
}

/// Where a check's join graph comes from when it first needs one (`None`: build it from
/// the catalog).
pub type GraphSource<'g> = dyn Fn() -> Option<Arc<Graph>> + 'g;

pub struct Walk<'a> {
    pub cat: &'a Catalog,
    /// The print's join graph, for the path a join the print knows no edge for should
    /// take: the snapshot's, or built from the catalog, when first needed.
    graph: std::cell::OnceCell<Arc<Graph>>,
    graph_source: &'a GraphSource<'a>,
    /// The value lists of the catalog's `listed` columns.
    pub domains: &'a dyn Domains,
    pub src: &'a Source<'a>,
    pub findings: Vec<Finding>,
    /// The catalog tables the SQL named, as met: with the join graph, if read, all the
    /// check read of the print beyond its manifest.
    pub met: Vec<usize>,
}

impl<'a> Walk<'a> {
    pub fn new(
        cat: &'a Catalog,
        domains: &'a dyn Domains,
        src: &'a Source<'a>,
        graph_source: &'a GraphSource<'a>,
    ) -> Walk<'a> {
        Walk {
            cat,
            graph: std::cell::OnceCell::new(),
            graph_source,
            domains,
            src,
            findings: Vec::new(),
            met: Vec::new(),
        }
    }

    /// Whether the check read the print's join graph (a path planned over every table).
    pub fn read_graph(&self) -> bool {
        self.graph.get().is_some()
    }

    /// The print's join graph, read or built on first use.
    pub fn graph(&self) -> &Graph {
        self.graph
            .get_or_init(|| (self.graph_source)().unwrap_or_else(|| Arc::new(Graph::of(self.cat))))
    }

    /// The stored spelling of an identifier as written.
    pub fn spell(&self, ident: &Ident) -> String {
        self.cat.adapter.spell(ident)
    }

    /// Record a finding at `span`, its text read from the SQL (else `fallback`).
    pub fn report(
        &mut self,
        kind: Kind,
        span: Span,
        fallback: &str,
        message: String,
        suggestions: Vec<String>,
    ) {
        let text = self
            .src
            .slice(span)
            .map(str::to_string)
            .unwrap_or_else(|| fallback.to_string());
        self.findings.push(Finding {
            kind,
            at: Source::position(span.start),
            text,
            message,
            suggestions,
        });
    }

    /// Whether the adapter lets a select-list alias be used in the same SELECT's WHERE.
    fn lateral_aliases(&self) -> bool {
        use super::dialect::Adapter::*;
        matches!(
            self.cat.adapter,
            DuckDb | Snowflake | Redshift | Databricks | ClickHouse | Generic
        )
    }

    pub fn statement(&mut self, statement: &Statement) {
        let top = Scope::empty();
        match statement {
            Statement::Query(q) => {
                self.query(q, &top, None);
            }
            Statement::Explain { statement, .. } => self.statement(statement),
            Statement::Insert(insert) => {
                if let TableObject::TableName(name) = &insert.table {
                    let mut rels = Vec::new();
                    self.table(name, None, &mut rels, None);
                    let scope = Scope {
                        relations: &rels,
                        ..Scope::empty()
                    };
                    for column in &insert.columns {
                        let parts: Vec<Ident> = column
                            .0
                            .iter()
                            .filter_map(|p| p.as_ident().cloned())
                            .collect();
                        exprs::reference(self, &parts, column.span(), &scope, false);
                    }
                }
                if let Some(source) = &insert.source {
                    self.query(source, &top, None);
                }
            }
            Statement::CreateView(view) => {
                self.query(&view.query, &top, None);
            }
            Statement::CreateTable(create) => {
                if let Some(q) = &create.query {
                    self.query(q, &top, None);
                }
            }
            Statement::Update(update) => {
                let mut items = vec![&update.table];
                if let Some(
                    UpdateTableFromKind::BeforeSet(from) | UpdateTableFromKind::AfterSet(from),
                ) = &update.from
                {
                    items.extend(from);
                }
                let from = self.dml_scope(&items);
                let scope = from.scope(&top);
                for a in &update.assignments {
                    let targets: Vec<&ObjectName> = match &a.target {
                        AssignmentTarget::ColumnName(n) => vec![n],
                        AssignmentTarget::Tuple(ns) => ns.iter().collect(),
                    };
                    for n in targets {
                        let parts: Vec<Ident> =
                            n.0.iter().filter_map(|p| p.as_ident().cloned()).collect();
                        exprs::reference(self, &parts, n.span(), &scope, false);
                    }
                    exprs::check(self, &a.value, &scope, None);
                }
                if let Some(selection) = &update.selection {
                    exprs::check(self, selection, &scope, None);
                }
            }
            Statement::Delete(delete) => {
                let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) =
                    &delete.from;
                let mut items: Vec<&TableWithJoins> = from.iter().collect();
                items.extend(delete.using.iter().flatten());
                let from = self.dml_scope(&items);
                let scope = from.scope(&top);
                if let Some(selection) = &delete.selection {
                    exprs::check(self, selection, &scope, None);
                }
            }
            // Other statements are read (their syntax checked) but not held against the print.
            _ => {}
        }
    }

    /// The relations an UPDATE or DELETE reads, joins checked as a SELECT's are.
    fn dml_scope(&mut self, items: &[&TableWithJoins]) -> FromList {
        let top = Scope::empty();
        let mut from = FromList::default();
        for twj in items {
            self.join_chain(twj, &mut from, &top, None);
        }
        from
    }

    /// A query's CTEs then its body; the columns it yields.
    pub fn query(&mut self, q: &Query, outer: &Scope, ctes: Option<&Ctes>) -> Arc<Columns> {
        let frame;
        let ctes = match &q.with {
            Some(with) => {
                let mut built = Ctes {
                    list: Vec::new(),
                    parent: ctes,
                };
                for cte in &with.cte_tables {
                    let name = self.spell(&cte.alias.name);
                    if with.recursive {
                        // The CTE names itself inside its body: what its alias list says.
                        let provisional = renamed(self, Arc::new(Columns::open()), &cte.alias);
                        built.list.push((name.clone(), provisional));
                    }
                    let view = Ctes {
                        list: built.list.clone(),
                        parent: ctes,
                    };
                    let columns = self.query(&cte.query, outer, Some(&view));
                    let columns = renamed(self, columns, &cte.alias);
                    if with.recursive {
                        built.list.pop();
                    }
                    built.list.push((name, columns));
                }
                frame = built;
                Some(&frame)
            }
            None => ctes,
        };
        let columns = match q.body.as_ref() {
            SetExpr::Select(s) => self.select(s, outer, ctes, Some(q)),
            body => {
                let columns = self.set_expr(body, outer, ctes);
                // ORDER BY over a set operation names its output columns.
                let rel = [Relation {
                    names: Vec::new(),
                    aliased: true,
                    written: String::new(),
                    source: RelSource::Subquery,
                    columns: columns.clone(),
                }];
                let scope = Scope {
                    relations: &rel,
                    parent: Some(outer),
                    ..Scope::empty()
                };
                exprs::visit(self, &q.order_by, &scope, ctes);
                columns
            }
        };
        exprs::visit(self, &q.limit_clause, outer, ctes);
        columns
    }

    fn set_expr(&mut self, body: &SetExpr, outer: &Scope, ctes: Option<&Ctes>) -> Arc<Columns> {
        match body {
            SetExpr::Select(s) => self.select(s, outer, ctes, None),
            SetExpr::Query(q) => self.query(q, outer, ctes),
            SetExpr::SetOperation { left, right, .. } => {
                let columns = self.set_expr(left, outer, ctes);
                self.set_expr(right, outer, ctes);
                // Rows come from either side: the names are the left's, the origins neither's.
                Arc::new(Columns {
                    list: columns
                        .list
                        .iter()
                        .map(|c| OutCol {
                            origin: None,
                            ..c.clone()
                        })
                        .collect(),
                    complete: columns.complete,
                })
            }
            SetExpr::Values(values) => {
                exprs::visit(self, values, outer, ctes);
                Arc::new(Columns::open())
            }
            _ => Arc::new(Columns::open()),
        }
    }

    /// A SELECT: its FROM into a scope, then its expressions; the columns it yields.
    /// `query` is the query it is the body of (for its ORDER BY).
    fn select(
        &mut self,
        s: &Select,
        outer: &Scope,
        ctes: Option<&Ctes>,
        query: Option<&Query>,
    ) -> Arc<Columns> {
        let mut from = FromList::default();
        // Which FROM item each relation came from: WHERE joins only between items.
        let mut item_of: Vec<usize> = Vec::new();
        for (item, twj) in s.from.iter().enumerate() {
            self.join_chain(twj, &mut from, outer, ctes);
            item_of.resize(from.relations.len(), item);
        }
        let aliases: Vec<String> = s
            .projection
            .iter()
            .filter_map(|p| match p {
                SelectItem::ExprWithAlias { alias, .. } => Some(self.spell(alias)),
                _ => None,
            })
            .collect();
        let lateral: &[String] = if self.lateral_aliases() {
            &aliases
        } else {
            &[]
        };
        let scope = Scope {
            aliases: lateral,
            ..from.scope(outer)
        };
        let with_aliases = Scope {
            aliases: &aliases,
            ..scope
        };
        let columns = self.projection(&s.projection, &scope, ctes);
        exprs::visit(self, &s.distinct, &scope, ctes);
        if let Some(selection) = &s.selection {
            exprs::check(self, selection, &scope, ctes);
            joins::check_where(self, selection, &scope, &item_of);
        }
        exprs::visit(self, &s.prewhere, &scope, ctes);
        exprs::visit(self, &s.group_by, &with_aliases, ctes);
        exprs::visit(self, &s.having, &with_aliases, ctes);
        exprs::visit(self, &s.qualify, &with_aliases, ctes);
        exprs::visit(self, &s.named_window, &with_aliases, ctes);
        exprs::visit(self, &s.cluster_by, &with_aliases, ctes);
        exprs::visit(self, &s.sort_by, &with_aliases, ctes);
        if let Some(q) = query {
            exprs::visit(self, &q.order_by, &with_aliases, ctes);
        }
        columns
    }

    /// The select list: each expression checked, and the columns it yields.
    fn projection(
        &mut self,
        items: &[SelectItem],
        scope: &Scope,
        ctes: Option<&Ctes>,
    ) -> Arc<Columns> {
        let mut out = Columns {
            list: Vec::new(),
            complete: true,
        };
        for item in items {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    exprs::check(self, e, scope, ctes);
                    match named(self, e, scope) {
                        Some(col) => out.list.push(col),
                        None => out.complete = false,
                    }
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    exprs::check(self, expr, scope, ctes);
                    out.list.push(OutCol {
                        stored: self.spell(alias),
                        written: alias.to_string(),
                        origin: exprs::origin(self, expr, scope),
                    });
                }
                SelectItem::ExprWithAliases { expr, .. } => {
                    exprs::check(self, expr, scope, ctes);
                    out.complete = false;
                }
                SelectItem::Wildcard(options) => {
                    let mut seen: Vec<String> = Vec::new();
                    for rel in scope.relations {
                        out.complete &= rel.columns.complete;
                        for c in &rel.columns.list {
                            // A USING column appears once.
                            if scope.merged.contains(&c.stored) && seen.contains(&c.stored) {
                                continue;
                            }
                            seen.push(c.stored.clone());
                            out.list.push(c.clone());
                        }
                    }
                    self.wildcard_options(&mut out, options);
                }
                SelectItem::QualifiedWildcard(kind, options) => match kind {
                    SelectItemQualifiedWildcardKind::ObjectName(name) => {
                        let parts = self.parts(name);
                        match scope.relations.iter().find(|r| r.answers_to(&parts)) {
                            Some(rel) => {
                                out.complete &= rel.columns.complete;
                                out.list.extend(rel.columns.list.iter().cloned());
                            }
                            None => {
                                out.complete = false;
                                let written = name.to_string();
                                let suggestions = scope
                                    .relations
                                    .iter()
                                    .filter(|r| !r.written.is_empty())
                                    .map(|r| format!("{}.*", r.written))
                                    .collect();
                                self.report(
                                    Kind::UnknownColumn,
                                    name.span(),
                                    &written,
                                    format!("`{written}` is not a table, alias or CTE of this query, so `{written}.*` selects nothing"),
                                    suggestions,
                                );
                            }
                        }
                        self.wildcard_options(&mut out, options);
                    }
                    SelectItemQualifiedWildcardKind::Expr(e) => {
                        exprs::check(self, e, scope, ctes);
                        out.complete = false;
                    }
                },
            }
        }
        Arc::new(out)
    }

    /// `* EXCLUDE (...)`, `* EXCEPT (...)`, `* RENAME (...)`: the yielded names adjusted.
    fn wildcard_options(&self, out: &mut Columns, options: &WildcardAdditionalOptions) {
        use sqlparser::ast::{ExcludeSelectItem, RenameSelectItem};
        let mut dropped: Vec<String> = Vec::new();
        match &options.opt_exclude {
            Some(ExcludeSelectItem::Single(n)) => dropped.extend(self.parts(n).pop()),
            Some(ExcludeSelectItem::Multiple(ns)) => {
                dropped.extend(ns.iter().filter_map(|n| self.parts(n).pop()))
            }
            None => {}
        }
        if let Some(except) = &options.opt_except {
            dropped.push(self.spell(&except.first_element));
            dropped.extend(except.additional_elements.iter().map(|i| self.spell(i)));
        }
        out.list.retain(|c| !dropped.contains(&c.stored));
        let renames = match &options.opt_rename {
            Some(RenameSelectItem::Single(r)) => vec![r],
            Some(RenameSelectItem::Multiple(rs)) => rs.iter().collect(),
            None => Vec::new(),
        };
        for r in renames {
            let from = self.spell(&r.ident);
            for c in out.list.iter_mut().filter(|c| c.stored == from) {
                c.stored = self.spell(&r.alias);
                c.written = r.alias.to_string();
            }
        }
        if options.opt_ilike.is_some() {
            out.complete = false;
        }
    }

    /// The stored spellings of a name's parts (a part that is a function call spells nothing).
    pub fn parts(&self, name: &ObjectName) -> Vec<String> {
        let mut out = Vec::new();
        for part in &name.0 {
            let ObjectNamePart::Identifier(ident) = part else {
                return Vec::new();
            };
            // BigQuery quotes a whole path in one pair of backticks.
            if self.cat.adapter == super::dialect::Adapter::BigQuery && ident.quote_style.is_some()
            {
                out.extend(
                    ident
                        .value
                        .split('.')
                        .map(|p| self.cat.adapter.spell_text(p, true)),
                );
            } else {
                out.push(self.spell(ident));
            }
        }
        out
    }

    /// One FROM item: its first relation and each join onto it.
    fn join_chain(
        &mut self,
        twj: &TableWithJoins,
        from: &mut FromList,
        outer: &Scope,
        ctes: Option<&Ctes>,
    ) {
        self.factor(&twj.relation, from, outer, ctes);
        for join in &twj.joins {
            let first_new = from.relations.len();
            self.factor(&join.relation, from, outer, ctes);
            if let JoinOperator::AsOf {
                match_condition, ..
            } = &join.join_operator
            {
                exprs::check(self, match_condition, &from.scope(outer), ctes);
            }
            let constraint = constraint_of(&join.join_operator);
            match constraint {
                Some(JoinConstraint::On(on)) => {
                    let scope = from.scope(outer);
                    exprs::check(self, on, &scope, ctes);
                    joins::check_on(self, on, &scope);
                }
                Some(JoinConstraint::Using(names) | JoinConstraint::UsingAlias(names, _)) => {
                    self.using(names, from, first_new);
                }
                Some(JoinConstraint::Natural) => {
                    let rels = &from.relations;
                    let common: Vec<String> = rels[first_new..]
                        .iter()
                        .flat_map(|r| r.columns.list.iter())
                        .filter(|c| {
                            rels[..first_new]
                                .iter()
                                .any(|l| l.columns.find(&c.stored).is_some())
                        })
                        .map(|c| c.stored.clone())
                        .collect();
                    from.merged.extend(common);
                }
                _ => {}
            }
        }
    }

    /// `USING (k, ...)`: each name must be a column on both sides; the pair is a join key.
    fn using(&mut self, names: &[ObjectName], from: &mut FromList, first_new: usize) {
        let mut sides: Vec<(JoinSide, JoinSide, Span)> = Vec::new();
        for name in names {
            let Some(ident) = name.0.last().and_then(ObjectNamePart::as_ident) else {
                continue;
            };
            let stored = self.spell(ident);
            let rels = &from.relations;
            let side = |range: std::ops::Range<usize>| -> (Option<JoinSide>, bool) {
                let mut open = false;
                for r in range {
                    match rels[r].columns.find(&stored) {
                        Some(c) => return (Some(JoinSide::new(r, &rels[r], c)), false),
                        None => open |= !rels[r].columns.complete,
                    }
                }
                (None, open)
            };
            let (left, left_open) = side(0..first_new);
            let (right, right_open) = side(first_new..rels.len());
            for (found, open, range, which) in [
                (&left, left_open, 0..first_new, "left"),
                (&right, right_open, first_new..rels.len(), "right"),
            ] {
                if found.is_some() || open {
                    continue;
                }
                let holders: Vec<&Relation> = rels[range].iter().collect();
                let shown: Vec<String> = holders.iter().map(|r| describe(self.cat, r)).collect();
                let suggestions = super::suggest::closest(
                    &stored,
                    holders
                        .iter()
                        .flat_map(|r| r.columns.list.iter())
                        .map(|c| (c.stored.as_str(), c.written.clone())),
                    super::suggest::LIMIT,
                );
                self.report(
                    Kind::UnknownColumn,
                    ident.span,
                    &ident.value,
                    format!(
                        "USING ({}) needs the column on both sides, but the {which} side ({}) has none",
                        ident,
                        shown.join(", ")
                    ),
                    suggestions,
                );
            }
            if let (Some(l), Some(r)) = (left, right) {
                sides.push((l, r, ident.span));
            }
            from.merged.push(stored);
        }
        joins::check_using(self, sides, &from.relations);
    }

    /// One relation of a FROM, pushed onto it.
    fn factor(
        &mut self,
        factor: &TableFactor,
        from: &mut FromList,
        outer: &Scope,
        ctes: Option<&Ctes>,
    ) {
        match factor {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                if let Some(args) = args {
                    // A table function: its arguments are checked, its columns unknown.
                    exprs::visit(self, &args.args, &from.scope(outer), ctes);
                    let rel = opaque(self, alias.as_ref(), &name.to_string());
                    from.relations.push(rel);
                    return;
                }
                self.table(name, alias.as_ref(), &mut from.relations, ctes);
            }
            TableFactor::Derived {
                lateral: is_lateral,
                subquery,
                alias,
                ..
            } => {
                let columns = if *is_lateral {
                    self.query(subquery, &from.scope(outer), ctes)
                } else {
                    self.query(subquery, outer, ctes)
                };
                let columns = match alias {
                    Some(a) => renamed(self, columns, a),
                    None => columns,
                };
                from.relations.push(Relation {
                    names: alias.iter().map(|a| self.spell(&a.name)).collect(),
                    aliased: true,
                    written: alias
                        .as_ref()
                        .map(|a| a.name.to_string())
                        .unwrap_or_default(),
                    source: RelSource::Subquery,
                    columns,
                });
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.join_chain(table_with_joins, from, outer, ctes),
            TableFactor::Pivot { table, alias, .. }
            | TableFactor::Unpivot { table, alias, .. }
            | TableFactor::MatchRecognize { table, alias, .. } => {
                // The inner table is checked; what the operator yields is not known here.
                self.factor(table, &mut FromList::default(), outer, ctes);
                let rel = opaque(self, alias.as_ref(), "");
                from.relations.push(rel);
            }
            other => {
                exprs::visit(self, other, &from.scope(outer), ctes);
                let alias = match other {
                    TableFactor::TableFunction { alias, .. }
                    | TableFactor::Function { alias, .. }
                    | TableFactor::UNNEST { alias, .. }
                    | TableFactor::JsonTable { alias, .. }
                    | TableFactor::OpenJsonTable { alias, .. }
                    | TableFactor::XmlTable { alias, .. }
                    | TableFactor::SemanticView { alias, .. } => alias.as_ref(),
                    _ => None,
                };
                let rel = opaque(self, alias, "");
                from.relations.push(rel);
            }
        }
    }

    /// A named table (or CTE) of a FROM, resolved and pushed onto `rels`.
    fn table(
        &mut self,
        name: &ObjectName,
        alias: Option<&TableAlias>,
        rels: &mut Vec<Relation>,
        ctes: Option<&Ctes>,
    ) {
        let parts = self.parts(name);
        let written = name.to_string();
        if parts.is_empty() {
            rels.push(opaque(self, alias, &written));
            return;
        }
        if let (1, Some(columns)) = (parts.len(), ctes.and_then(|c| c.find(&parts[0]))) {
            let columns = match alias {
                Some(a) => renamed(self, columns, a),
                None => columns,
            };
            rels.push(Relation {
                names: vec![alias.map_or_else(|| parts[0].clone(), |a| self.spell(&a.name))],
                aliased: true,
                written: alias.map_or_else(|| written.clone(), |a| a.name.to_string()),
                source: RelSource::Cte(name.to_string()),
                columns,
            });
            return;
        }
        match tables::resolve(self.cat, &parts) {
            TableMatch::Found(t) => {
                self.met.push(t);
                let columns = self.columns_of(t);
                let columns = match alias {
                    Some(a) => renamed(self, columns, a),
                    None => columns,
                };
                rels.push(Relation {
                    names: match alias {
                        Some(a) => vec![self.spell(&a.name)],
                        None => self.cat.tables[t].path(),
                    },
                    aliased: alias.is_some(),
                    written: alias.map_or_else(|| written.clone(), |a| a.name.to_string()),
                    source: RelSource::Table(t),
                    columns,
                });
            }
            found => {
                match found {
                    TableMatch::Missing(suggestions) => {
                        let message = if suggestions.is_empty() {
                            format!("`{written}` is not a table or view of the print, and no name there is close to it")
                        } else {
                            let note = if parts.len() == 1 {
                                default_note(self.cat)
                            } else {
                                String::new()
                            };
                            format!("`{written}` is not a table or view of the print{note}")
                        };
                        self.report(
                            Kind::UnknownTable,
                            name.span(),
                            &written,
                            message,
                            suggestions,
                        );
                    }
                    TableMatch::Several(names) => {
                        let message = format!(
                            "`{written}` names {} tables of the print ({}); qualify it",
                            names.len(),
                            names.join(", ")
                        );
                        self.report(Kind::UnknownTable, name.span(), &written, message, names);
                    }
                    TableMatch::System | TableMatch::Found(_) => {}
                }
                let mut rel = opaque(self, alias, &written);
                if alias.is_none() {
                    rel.names = parts;
                    rel.aliased = false;
                }
                rels.push(rel);
            }
        }
    }

    /// Table `t`'s columns as a relation yields them.
    fn columns_of(&self, t: usize) -> Arc<Columns> {
        self.cat.tables[t].yields()
    }
}

/// The constraint a join carries (`ON`, `USING`, `NATURAL`), if its kind takes one.
fn constraint_of(op: &JoinOperator) -> Option<&JoinConstraint> {
    use JoinOperator::*;
    Some(match op {
        Join(c) | Inner(c) | Left(c) | LeftOuter(c) | Right(c) | RightOuter(c) => c,
        FullOuter(c) | CrossJoin(c) | Semi(c) | LeftSemi(c) | RightSemi(c) => c,
        Anti(c) | LeftAnti(c) | RightAnti(c) | StraightJoin(c) => c,
        AsOf { constraint, .. } => constraint,
        CrossApply | OuterApply | ArrayJoin | LeftArrayJoin | InnerArrayJoin => return None,
    })
}

/// " (default schema main)" and the like, for a missing table's message.
fn default_note(cat: &Catalog) -> String {
    match cat.adapter.default_schema() {
        Some(s) if cat.adapter.namespace_depth() == Some(2) => {
            format!(
                " ({} looks an unqualified name up in schema {s})",
                cat.adapter.name()
            )
        }
        _ => String::new(),
    }
}

/// How a message names a relation: `l (stacks.lending.loans)`, `the CTE x`...
pub fn describe(cat: &Catalog, rel: &Relation) -> String {
    match &rel.source {
        RelSource::Table(t) if rel.aliased => format!("`{}` ({})", rel.written, cat.tables[*t].fqn),
        RelSource::Table(t) => cat.tables[*t].fqn.clone(),
        RelSource::Cte(name) if *name == rel.written => format!("the CTE `{name}`"),
        RelSource::Cte(name) => format!("`{}` (the CTE {name})", rel.written),
        RelSource::Subquery if rel.written.is_empty() => "a subquery".to_string(),
        RelSource::Subquery => format!("the subquery `{}`", rel.written),
        RelSource::Opaque => format!("`{}`", rel.written),
    }
}

/// A relation whose columns cannot be known.
fn opaque(walk: &Walk, alias: Option<&TableAlias>, written: &str) -> Relation {
    Relation {
        names: alias.iter().map(|a| walk.spell(&a.name)).collect(),
        aliased: true,
        written: alias.map_or_else(|| written.to_string(), |a| a.name.to_string()),
        source: RelSource::Opaque,
        columns: Arc::new(Columns::open()),
    }
}

/// `AS x (a, b)`: the columns renamed in order (the rest keep their names).
fn renamed(walk: &Walk, columns: Arc<Columns>, alias: &TableAlias) -> Arc<Columns> {
    if alias.columns.is_empty() {
        return columns;
    }
    let mut list = columns.list.clone();
    for (i, def) in alias.columns.iter().enumerate() {
        let col = OutCol {
            stored: walk.spell(&def.name),
            written: def.name.to_string(),
            origin: list.get(i).and_then(|c| c.origin),
        };
        match list.get_mut(i) {
            Some(slot) => *slot = col,
            None => list.push(col),
        }
    }
    Arc::new(Columns {
        complete: columns.complete || list.len() == alias.columns.len(),
        list,
    })
}

/// The column an unaliased select item yields, when it has a name.
fn named(walk: &Walk, e: &Expr, scope: &Scope) -> Option<OutCol> {
    let parts: &[Ident] = match e {
        Expr::Identifier(i) => std::slice::from_ref(i),
        Expr::CompoundIdentifier(is) => is,
        _ => return None,
    };
    let spelled: Vec<String> = parts.iter().map(|p| walk.spell(p)).collect();
    let (found, k) = scope::dotted(scope, &spelled);
    if let (
        Lookup::Column {
            depth, rel, col, ..
        },
        true,
    ) = (&found, k + 1 == parts.len())
    {
        let s = scope::level(scope, *depth);
        return Some(s.relations[*rel].columns.list[*col].clone());
    }
    let last = parts.last()?;
    Some(OutCol {
        stored: walk.spell(last),
        written: last.to_string(),
        origin: None,
    })
}
