//! Writing tables' documents into the index in batches: built over the cores while the
//! writer indexes and commits the batch before.

use tantivy::indexer::UserOperation;
use tantivy::{IndexWriter, TantivyDocument};

use super::{worker_panicked, IndexError, Load, SearchIndex, TableDocs, TableEntry};

/// Tables whose documents are built at once while (re)indexing: bounds the documents
/// held before the writer takes them.
const TABLES_PER_BATCH: usize = 500;
/// Tables per commit while (re)indexing, at least: each commit writes a segment (and
/// syncs it) that merges then read again.
const TABLES_PER_COMMIT: usize = 2000;
/// Documents handed to the index writer at once while (re)indexing.
const DOCS_PER_RUN: usize = 64;

/// Give `docs` to `writer` in runs of [`DOCS_PER_RUN`], one message through its channel
/// each: the channel's sender spins while the indexing thread is behind, so one message
/// per document spent CPU a rebuild needs.
fn hand_over(
    writer: &IndexWriter<TantivyDocument>,
    docs: impl Iterator<Item = TantivyDocument>,
) -> tantivy::Result<()> {
    let mut docs = docs.peekable();
    while docs.peek().is_some() {
        let run: Vec<UserOperation<TantivyDocument>> = docs
            .by_ref()
            .take(DOCS_PER_RUN)
            .map(UserOperation::Add)
            .collect();
        writer.run(run)?;
    }
    Ok(())
}

impl SearchIndex {
    /// Add `fresh`'s documents to `writer`, committing every [`TABLES_PER_COMMIT`] tables:
    /// the tables committed (with their keys), the time spent building documents, and the
    /// first error. Building a batch's documents (spread over the cores) goes on while the
    /// writer indexes and commits the batch before it: neither waits for the other.
    pub(super) fn index_batches(
        &self,
        conn: &str,
        fresh: &[&TableEntry],
        load: &Load<'_>,
        writer: &mut IndexWriter<TantivyDocument>,
    ) -> (
        Vec<(String, u64)>,
        std::time::Duration,
        Result<(), IndexError>,
    ) {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (to_writer, built) = std::sync::mpsc::sync_channel::<(&[&TableEntry], TableDocs)>(0);
        std::thread::scope(|scope| {
            let feeder = scope.spawn(move || {
                let mut committed = Vec::new();
                let mut added: Vec<(String, u64)> = Vec::new();
                let mut built = built.into_iter().peekable();
                while let Some((batch, docs)) = built.next() {
                    // search_columns' documents first, find's after them: a search_columns
                    // page then reads its documents from fewer doc-store blocks.
                    let docs = docs.search.into_iter().chain(docs.find);
                    if let Err(e) = hand_over(writer, docs) {
                        return (committed, Err(IndexError::from(e)));
                    }
                    added.extend(batch.iter().map(|t| (t.fqn.clone(), t.key)));
                    // The last batch is known once the builders hang up.
                    if added.len() < TABLES_PER_COMMIT && built.peek().is_some() {
                        continue;
                    }
                    // No reader reload here: the sync reloads once its commits have
                    // landed. A reader reloaded after each commit held every segment a
                    // merge then read, keeping the merge's pages of them mapped (most of
                    // a rebuild's peak beyond its documents).
                    if let Err(e) = writer.commit() {
                        return (committed, Err(IndexError::from(e)));
                    }
                    committed.append(&mut added);
                }
                (committed, Ok(()))
            });
            let mut building = std::time::Duration::ZERO;
            let mut failed = None;
            for batch in fresh.chunks(TABLES_PER_BATCH) {
                let started = std::time::Instant::now();
                let docs = self.batch_docs(conn, batch, load, workers);
                building += started.elapsed();
                match docs {
                    // A send fails only when the writer stopped on an error it returns.
                    Ok(docs) => {
                        if to_writer.send((batch, docs)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            drop(to_writer);
            let (committed, written) = feeder
                .join()
                .unwrap_or_else(|_| (Vec::new(), Err(worker_panicked())));
            let result = written.and_then(|()| failed.map_or(Ok(()), Err));
            (committed, building, result)
        })
    }

    /// The documents of `batch`'s tables, in order, built by up to `workers` threads.
    fn batch_docs(
        &self,
        conn: &str,
        batch: &[&TableEntry],
        load: &Load<'_>,
        workers: usize,
    ) -> Result<TableDocs, IndexError> {
        let per = batch.len().div_ceil(workers).max(1);
        let parts: Vec<Result<TableDocs, IndexError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = batch
                .chunks(per)
                .map(|tables| {
                    scope.spawn(move || -> Result<TableDocs, IndexError> {
                        let mut out = TableDocs::default();
                        for table in tables {
                            let docs = self.table_docs(conn, table, load)?;
                            out.search.extend(docs.search);
                            out.find.extend(docs.find);
                        }
                        Ok(out)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(worker_panicked())))
                .collect()
        });
        let mut out = TableDocs::default();
        for part in parts {
            let part = part?;
            out.search.extend(part.search);
            out.find.extend(part.find);
        }
        Ok(out)
    }
}
