//! One read per key per provider process: concurrent callers of the same key wait on the first caller's read instead
//! of making their own. Only successes are kept (a failed or not-found read is tried again by the next caller).

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use tokio::sync::OnceCell;

pub struct Memo<K, V> {
    cells: Mutex<HashMap<K, Arc<OnceCell<V>>>>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Self {
            cells: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> Memo<K, V> {
    /// The value for `key`, read by `read` unless this process has it or is reading it.
    pub async fn get<E, F, Fut>(&self, key: &K, read: F) -> Result<V, E>
    where
        F: FnOnce() -> Fut + Send,
        Fut: Future<Output = Result<V, E>> + Send,
    {
        self.get_boxed(key, Box::pin(async move { read().await })).await
    }

    /// One body per key and value type, whatever the read (the binary carries every instance of it).
    async fn get_boxed<E>(&self, key: &K, read: BoxFuture<'_, Result<V, E>>) -> Result<V, E> {
        let cell = {
            let mut cells = self.cells.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(cells.entry(key.clone()).or_default())
        };
        cell.get_or_try_init(|| read).await.cloned()
    }

    /// Forgets `key`: the next caller reads it again. A read already in flight still answers its own waiters.
    pub fn forget(&self, key: &K) {
        self.cells.lock().unwrap_or_else(PoisonError::into_inner).remove(key);
    }

    /// Forgets every key `stale` picks.
    pub fn forget_where(&self, stale: impl Fn(&K) -> bool) {
        self.cells
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|key, _| !stale(key));
    }

    pub fn clear(&self) {
        self.cells.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn concurrent_callers_share_one_read_and_failures_are_not_kept() {
        let memo: Memo<&str, u32> = Memo::default();
        let reads = AtomicUsize::new(0);
        let read = || async {
            reads.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
            Ok::<_, ()>(7)
        };
        let (a, b) = tokio::join!(memo.get(&"k", read), memo.get(&"k", read));
        assert_eq!((a, b), (Ok(7), Ok(7)));
        assert_eq!(reads.load(Ordering::SeqCst), 1);

        let failed: Result<u32, &str> = memo.get(&"bad", || async { Err("throttled") }).await;
        assert_eq!(failed, Err("throttled"));
        assert_eq!(memo.get(&"bad", || async { Ok::<_, &str>(3) }).await, Ok(3));

        memo.forget(&"k");
        assert_eq!(memo.get(&"k", read).await, Ok(7));
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }
}
