"""Small, pure compiled kernels: histogram building, split finding, partitioning, prediction."""
