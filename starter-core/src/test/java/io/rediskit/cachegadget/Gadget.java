package io.rediskit.cachegadget;

import java.util.concurrent.atomic.AtomicInteger;

/** A class outside the trusted packages, counting its instances: the cache must never create one from JSON. */
public class Gadget {

	public static final AtomicInteger created = new AtomicInteger();

	private String command = "";

	public Gadget() {
		created.incrementAndGet();
	}

	public String getCommand() {
		return this.command;
	}

	public void setCommand(String command) {
		this.command = command;
	}

}
