//! Disjoint sets of indices: which files or call-graph nodes belong together.

/// Disjoint sets of indices, merged by `union`.
pub(crate) struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    pub fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }

    /// Per index, the index of its set's first member.
    pub fn sets(&mut self) -> Vec<usize> {
        (0..self.parent.len()).map(|i| self.root(i)).collect()
    }

    /// The sets, each in index order, ordered by their first index.
    pub fn groups(mut self) -> Vec<Vec<usize>> {
        let n = self.parent.len();
        let mut groups: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in 0..n {
            let r = self.root(i);
            groups[r].push(i);
        }
        groups.retain(|g| !g.is_empty());
        groups
    }
}
