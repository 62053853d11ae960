package io.rediskit.queue;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.ThrottledLog;

/**
 * What every queue of one registry shares, handed down by the registry: the scripts, the payload codec, the
 * listeners, the observations, the outage log, the wake-up signals and the source of ids.
 * <p>
 * Generated message ids are the enqueue time on this JVM's clock in hex, a counter and this registry's random
 * instance id: unique, and for one producer sorted in enqueue order, which orders messages with equal due
 * times. Request ids (claims, cancels) are the instance id and a counter.
 */
final class QueueParts {

	final QueueScripts scripts;

	final PayloadCodec codec;

	final Listeners<QueueEventListener> listeners;

	final ThrottledLog outages;

	final QueueSignals signals;

	/** Where enqueues and handled messages are observed; set by the registry. */
	volatile Observations observations = Observations.NOOP;

	private final String instance;

	private final AtomicLong sequence = new AtomicLong();

	QueueParts(QueueScripts scripts, PayloadCodec codec, Listeners<QueueEventListener> listeners, ThrottledLog outages,
			QueueSignals signals) {
		this.scripts = scripts;
		this.codec = codec;
		this.listeners = listeners;
		this.outages = outages;
		this.signals = signals;
		byte[] random = new byte[5];
		new SecureRandom().nextBytes(random);
		this.instance = HexFormat.of().formatHex(random);
	}

	String newMessageId() {
		long count = this.sequence.incrementAndGet();
		StringBuilder id = new StringBuilder(30);
		appendHex(id, System.currentTimeMillis(), 12);
		appendHex(id, count & 0xffffffffL, 8);
		return id.append(this.instance).toString();
	}

	/** Fixed-width lower-case hex, so that ids sort by time, then by count. */
	private static void appendHex(StringBuilder out, long value, int digits) {
		for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
			out.append(Character.forDigit((int) ((value >>> shift) & 0xf), 16));
		}
	}

	String newRequestId() {
		return this.instance + "-" + Long.toString(this.sequence.incrementAndGet(), 36);
	}

}
