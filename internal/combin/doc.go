// Package combin walks the k-subsets of a set in lexicographic order, for the searches
// of topology (which K children of a group to place) and admission (which candidates on
// a node to evict).
//
// It does not enumerate other combinatorial objects, nor choose among the subsets.
//
// Concurrency: the functions are pure and allocation-free; they write only the slice
// they are given.
package combin
