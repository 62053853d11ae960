package io.rediskit.bitmap;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservedCalls;

/**
 * What every entry of a {@link BitmapRegistry} holds, whatever it counts: its name and spec, the executor of its
 * plain commands, its key naming and its observed calls. Written once for the calendars, the daily activities
 * and the packed counters, which differ only in their keys and operations.
 *
 * @param <S> the entry's spec
 */
abstract class BitmapEntry<S> {

	final String name;

	final S spec;

	final CommandExecutor commands;

	final KeyNaming keyNaming;

	final ObservedCalls calls;

	BitmapEntry(String name, S spec, CommandExecutor commands, KeyNaming keyNaming,
			ObservedCalls calls) {
		this.name = name;
		this.spec = spec;
		this.commands = commands;
		this.keyNaming = keyNaming;
		this.calls = calls;
	}

	/** @return the entry's name */
	public String name() {
		return this.name;
	}

	/** @return the entry's spec */
	public S spec() {
		return this.spec;
	}

}
