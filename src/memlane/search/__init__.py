"""Ranking: keyword and vector legs, priors, feedback, reranking, and the vector indexes."""
