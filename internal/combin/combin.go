package combin

// First sets idx to the first k-subset of [0, n) in lexicographic order, {0, …, k−1},
// where k is len(idx).
func First(idx []int) {
	for i := range idx {
		idx[i] = i
	}
}

// Next advances idx, a k-subset of [0, n) in increasing order, to the next one in
// lexicographic order, and reports false when idx was the last.
func Next(idx []int, n int) bool {
	k := len(idx)
	for i := k - 1; i >= 0; i-- {
		if idx[i] < n-k+i {
			idx[i]++
			for j := i + 1; j < k; j++ {
				idx[j] = idx[j-1] + 1
			}
			return true
		}
	}
	return false
}
