package io.rediskit.rank;

/**
 * Which end of a board comes first. Ties (equal scores) are ordered by the members' UTF-8 bytes, compared as
 * unsigned bytes: ascending in {@link #LOWEST_FIRST}, descending in {@link #HIGHEST_FIRST}, so one order is
 * always exactly the other reversed (the order Redis keeps a sorted set in).
 */
public enum RankOrder {

	/** Highest score first: rank 1 is the highest score; among equal scores, the greatest member first. */
	HIGHEST_FIRST,

	/** Lowest score first: rank 1 is the lowest score; among equal scores, the least member first. */
	LOWEST_FIRST

}
