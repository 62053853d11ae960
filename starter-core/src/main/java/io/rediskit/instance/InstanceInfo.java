package io.rediskit.instance;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * What identifies one running instance to an operator: the application's name, the host and process it runs in,
 * its version and when it started. The id is random per start, so that a restarted process is a new instance.
 *
 * @param id a random id, unique per start
 * @param application the application's name ({@code spring.application.name}), {@code application} when unnamed
 * @param host the host name
 * @param pid the process id
 * @param version the application's version, or redis-kit's when the application has none
 * @param startedAt when the instance started
 */
public record InstanceInfo(String id, String application, String host, long pid, String version, Instant startedAt) {

	/**
	 * Checks the parts.
	 * @param id a random id, unique per start
	 * @param application the application's name
	 * @param host the host name
	 * @param pid the process id
	 * @param version the version
	 * @param startedAt when the instance started
	 */
	public InstanceInfo {
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(application, "application");
		Objects.requireNonNull(host, "host");
		Objects.requireNonNull(version, "version");
		Objects.requireNonNull(startedAt, "startedAt");
	}

	/**
	 * This process, with a new random id.
	 * @param application the application's name
	 * @param version the application's version
	 * @return the instance as the operating system and the JVM know it
	 */
	public static InstanceInfo current(String application, String version) {
		return new InstanceInfo(UUID.randomUUID().toString(), application, hostName(), ProcessHandle.current().pid(),
				version, Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()));
	}

	private static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "unknown-host";
		}
	}

	/** @return the name an operator recognises: {@code application@host:pid} */
	public String displayName() {
		return this.application + "@" + this.host + ":" + this.pid;
	}

}
