package io.rediskit.bitmap;

/**
 * Of the users active on one day (the cohort), how many were active again a number of days later.
 *
 * @param cohort users active on the first day
 * @param retained of those, the users active on the later day
 */
public record Retention(long cohort, long retained) {

	/** @return retained / cohort, 0 for an empty cohort */
	public double rate() {
		return (this.cohort == 0) ? 0 : (double) this.retained / this.cohort;
	}

}
