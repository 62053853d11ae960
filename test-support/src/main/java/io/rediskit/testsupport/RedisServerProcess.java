package io.rediskit.testsupport;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One server process on a free loopback port, started by this class and stopped by it: a {@code redis-server}, or
 * whatever engine {@link RedisServerBinary#locate()} selected for this JVM (a {@code valkey-server}), or a Sentinel
 * of it. Persistence is off. Fault injection: {@link #pause()} and {@link #resume()} send {@code SIGSTOP} and
 * {@code SIGCONT}, {@link #kill()} sends {@code SIGKILL}, {@link #restart()} starts it again on the same port.
 * {@link #command(String...)} talks RESP over a plain socket, so tests can inspect and disturb the server
 * without going through the client under test.
 * <p>
 * Every process still running when the JVM exits is killed by a shutdown hook, so a test that fails before
 * its clean-up, or a run interrupted with Ctrl-C, leaves no server behind.
 */
public final class RedisServerProcess implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

	private static final String KILL = Files.isExecutable(Path.of("/bin/kill")) ? "/bin/kill"
			: Files.isExecutable(Path.of("/usr/bin/kill")) ? "/usr/bin/kill" : "kill";

	private static final Set<Process> running = ConcurrentHashMap.newKeySet();

	private static final RecentPorts recentPorts = new RecentPorts(256);

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> running.forEach(Process::destroyForcibly),
				"redis-kit-server-reaper"));
	}

	private final RedisServerBinary binary;

	private final Path executable;

	private final @Nullable Path configFile;

	private final List<String> extraArguments;

	private final Path workDirectory;

	private final int port;

	private @Nullable Process process;

	private RedisServerProcess(RedisServerBinary binary, int port, List<String> extraArguments) throws IOException {
		this(binary, binary.path(), port, null, extraArguments);
	}

	private RedisServerProcess(RedisServerBinary binary, Path executable, int port, @Nullable Path configFile,
			List<String> extraArguments) throws IOException {
		this.binary = binary;
		this.executable = executable;
		this.configFile = configFile;
		this.port = port;
		this.extraArguments = List.copyOf(extraArguments);
		this.workDirectory = Files.createTempDirectory("redis-kit-server-" + port);
	}

	/**
	 * Starts a server on a free loopback port.
	 * @param extraArguments further {@code redis-server} arguments, such as {@code "--maxmemory", "10mb"}
	 * @return the running server
	 */
	public static RedisServerProcess start(String... extraArguments) {
		return startWith(() -> extraArguments);
	}

	/**
	 * Starts a server on a free loopback port, with arguments made anew for each attempt: for arguments that name
	 * further ports (such as the cluster bus port), which another process may take between probing and binding
	 * as it may take the server's own.
	 * @param extraArguments makes the further {@code redis-server} arguments of one attempt
	 * @return the running server
	 */
	public static RedisServerProcess startWith(Supplier<String[]> extraArguments) {
		RedisServerBinary binary = RedisServerBinary.locate();
		IllegalStateException last = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			try {
				RedisServerProcess server = new RedisServerProcess(binary, freePort(), List.of(extraArguments.get()));
				server.launch();
				return server;
			}
			catch (IOException | IllegalStateException ex) {
				// Another process may have taken the free port between probing and binding: try another.
				last = new IllegalStateException("Cannot start " + binary.path() + ": " + ex.getMessage(), ex);
			}
		}
		throw last;
	}

	/**
	 * Starts a server on the given port, or fails.
	 * @param port a free loopback port
	 * @param extraArguments further {@code redis-server} arguments
	 * @return the running server
	 */
	public static RedisServerProcess startOnPort(int port, String... extraArguments) {
		try {
			RedisServerProcess server = new RedisServerProcess(RedisServerBinary.locate(), port, List.of(extraArguments));
			server.launch();
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start redis-server on port " + port, ex);
		}
	}

	/**
	 * Starts a server that reads a configuration file first, such as a Sentinel's (which Sentinel rewrites, so
	 * it must be writable and belong to this server alone).
	 * @param configFile the configuration file
	 * @param extraArguments further {@code redis-server} arguments, such as {@code "--sentinel"}
	 * @return the running server
	 */
	public static RedisServerProcess startWithConfig(Path configFile, String... extraArguments) {
		RedisServerBinary binary = RedisServerBinary.locate();
		return startWithConfig(binary, binary.path(), configFile, extraArguments);
	}

	/**
	 * Starts a Sentinel of this JVM's engine ({@link RedisServerBinary#sentinelPath()}, such as
	 * {@code valkey-sentinel}) with its configuration file, which Sentinel rewrites, so it must be writable and
	 * belong to this Sentinel alone.
	 * @param configFile the configuration file
	 * @return the running Sentinel
	 */
	public static RedisServerProcess startSentinel(Path configFile) {
		RedisServerBinary binary = RedisServerBinary.locate();
		// --sentinel as well: the server executable needs it, and a Sentinel executable takes it as what it is.
		return startWithConfig(binary, binary.sentinelPath(), configFile, "--sentinel");
	}

	private static RedisServerProcess startWithConfig(RedisServerBinary binary, Path executable, Path configFile,
			String... extraArguments) {
		IllegalStateException last = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			try {
				RedisServerProcess server = new RedisServerProcess(binary, executable, freePort(), configFile,
						List.of(extraArguments));
				server.launch();
				return server;
			}
			catch (IOException | IllegalStateException ex) {
				last = new IllegalStateException("Cannot start " + executable + ": " + ex.getMessage(), ex);
			}
		}
		throw last;
	}

	/**
	 * A loopback port nothing listens on now (never 6379), for a server's further ports such as the cluster bus.
	 * @return the port
	 */
	public static int freeLoopbackPort() {
		try {
			return freePort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("No free loopback port", ex);
		}
	}

	/** @return the loopback port the server listens on */
	public int port() {
		return this.port;
	}

	/** @return {@code 127.0.0.1} */
	public String host() {
		return "127.0.0.1";
	}

	/** @return the URI a client connects to, such as {@code redis://127.0.0.1:40123} */
	public String uri() {
		return "redis://" + host() + ":" + this.port;
	}

	/** @return the binary this server runs (a Sentinel: the server binary of its engine) */
	public RedisServerBinary binary() {
		return this.binary;
	}

	/** @return the operating-system process id */
	public long pid() {
		return requireProcess().pid();
	}

	/** @return whether the process is alive (a paused process is alive) */
	public boolean isAlive() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	/** Stops the process with {@code SIGSTOP}: clients see a server that accepts connections and never answers. */
	public void pause() {
		signal("STOP");
	}

	/** Continues a paused process with {@code SIGCONT}. */
	public void resume() {
		signal("CONT");
	}

	/** Kills the process with {@code SIGKILL} and waits for it to end; its data is gone. */
	public void kill() {
		Process current = requireProcess();
		current.destroyForcibly();
		waitForExit(current);
		running.remove(current);
		this.process = null;
	}

	/** Starts the server again on the same port, after {@link #kill()} or {@link #stop()}. */
	public void restart() {
		if (isAlive()) {
			kill();
		}
		try {
			launch();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot restart redis-server on port " + this.port, ex);
		}
	}

	/** Stops the server (resuming it first if paused) and waits for the process to end. */
	public void stop() {
		Process current = this.process;
		if (current == null) {
			return;
		}
		if (current.isAlive()) {
			signal("CONT");
			current.destroy();
			try {
				if (!current.waitFor(10, TimeUnit.SECONDS)) {
					current.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				current.destroyForcibly();
				Thread.currentThread().interrupt();
			}
		}
		running.remove(current);
		this.process = null;
	}

	@Override
	public void close() {
		stop();
		deleteRecursively(this.workDirectory);
	}

	/**
	 * Sends one command over a fresh connection and returns the reply.
	 * @param arguments the command and its arguments
	 * @return the reply: a {@code String} for simple and bulk strings, a {@code Long}, a {@code List}, or
	 * {@code null}; an error reply is thrown as {@link IllegalStateException}
	 */
	public @Nullable Object command(String... arguments) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host(), this.port), 2000);
			socket.setSoTimeout(10_000);
			return Resp.call(socket, arguments);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot reach redis-server on port " + this.port + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Sends {@code READONLY} and then one command over a fresh connection: how a cluster replica answers reads
	 * of the slots its master serves instead of redirecting them.
	 * @param arguments the command and its arguments
	 * @return the reply, as for {@link #command(String...)}
	 */
	public @Nullable Object readOnlyCommand(String... arguments) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host(), this.port), 2000);
			socket.setSoTimeout(10_000);
			Resp.call(socket, "READONLY");
			return Resp.call(socket, arguments);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot reach redis-server on port " + this.port + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Counts the keys in database 0.
	 * @return {@code DBSIZE}
	 */
	public long dbSize() {
		return (Long) command("DBSIZE");
	}

	/** Deletes every key: only ever on this server, which this class started. */
	public void flushAll() {
		command("FLUSHALL");
	}

	/**
	 * @return what the server has written to its log since it was first started (across restarts), for a failed
	 * test to show; empty once the server is closed
	 */
	public String log() {
		try {
			return Files.readString(this.workDirectory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "";
		}
	}

	@Override
	public String toString() {
		return this.binary.nameAndVersion() + " on " + host() + ":" + this.port;
	}

	private void launch() throws IOException {
		List<String> commandLine = new ArrayList<>(List.of(this.executable.toString()));
		if (this.configFile != null) {
			// redis-server reads a configuration file only as its first argument.
			commandLine.add(this.configFile.toString());
		}
		commandLine.addAll(List.of("--port",
				Integer.toString(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
				"--dir", this.workDirectory.toString(), "--daemonize", "no"));
		if (this.binary.atLeast(7)) {
			commandLine.addAll(List.of("--enable-debug-command", "yes"));
		}
		commandLine.addAll(this.extraArguments);
		Path log = this.workDirectory.resolve("redis.log");
		Process started = new ProcessBuilder(commandLine).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
			.start();
		this.process = started;
		running.add(started);
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!started.isAlive()) {
				running.remove(started);
				this.process = null;
				throw new IllegalStateException(
						this.executable.getFileName() + " exited with " + started.exitValue() + ": " + tail(log));
			}
			if (answersPing()) {
				// A server of this JVM started at the same moment on the same probed port answers too, while this
				// one, which could not bind, is on its way out: only our own process counts as started. Seen as
				// "ERR Can't replicate myself" in a CI run (2026-11-29), two nodes of one cluster being one server.
				long answering = answeringPid();
				if (answering == started.pid() && started.isAlive()) {
					return;
				}
				if (answering > 0) {
					started.destroyForcibly();
					running.remove(started);
					this.process = null;
					throw new IllegalStateException("port " + this.port + " is served by process " + answering
							+ ", not by the one started (" + started.pid() + ")");
				}
			}
			sleepBriefly();
		}
		started.destroyForcibly();
		running.remove(started);
		this.process = null;
		throw new IllegalStateException(
				this.executable.getFileName() + " did not answer PING within " + START_TIMEOUT + ": " + tail(log));
	}

	/** @return the process id the server on this port reports, or -1 if it does not answer */
	private long answeringPid() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host(), this.port), 200);
			socket.setSoTimeout(1000);
			Object info = Resp.call(socket, "INFO", "server");
			if (info instanceof String text) {
				for (String line : text.split("\r\n")) {
					if (line.startsWith("process_id:")) {
						return Long.parseLong(line.substring("process_id:".length()).trim());
					}
				}
			}
			return -1;
		}
		catch (IOException | IllegalStateException | NumberFormatException ex) {
			return -1;
		}
	}

	private boolean answersPing() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host(), this.port), 200);
			socket.setSoTimeout(1000);
			return "PONG".equals(Resp.call(socket, "PING"));
		}
		catch (IOException | IllegalStateException ex) {
			return false;
		}
	}

	private void signal(String signal) {
		Process current = requireProcess();
		try {
			Process kill = new ProcessBuilder(KILL, "-" + signal, Long.toString(current.pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + current.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot send SIG" + signal + " to redis-server", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending SIG" + signal, ex);
		}
	}

	private Process requireProcess() {
		Process current = this.process;
		if (current == null) {
			throw new IllegalStateException(this + " is not running");
		}
		return current;
	}

	private static void waitForExit(Process process) {
		try {
			process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleepBriefly() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting redis-server", ex);
		}
	}

	private static String tail(Path log) {
		try {
			String text = Files.readString(log);
			return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			socket.setReuseAddress(true);
			int port = socket.getLocalPort();
			// Never 6379, and never a port this JVM handed out among its last ones: parallel starts (a cluster's
			// nodes) probe at the same moment, and the system may offer the same port to two of them.
			return (port == 6379 || !recentPorts.claim(port)) ? freePort() : port;
		}
	}

	private static void deleteRecursively(Path directory) {
		try (var paths = Files.walk(directory)) {
			paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A temporary directory left behind is harmless.
		}
	}

	/** The last ports this JVM handed out, so that no two starts close together get the same one. */
	static final class RecentPorts {

		private final int capacity;

		private final java.util.ArrayDeque<Integer> order = new java.util.ArrayDeque<>();

		private final Set<Integer> ports = new java.util.HashSet<>();

		RecentPorts(int capacity) {
			this.capacity = capacity;
		}

		/** @return whether the port was not among the recent ones; it is now */
		synchronized boolean claim(int port) {
			if (!this.ports.add(port)) {
				return false;
			}
			this.order.addLast(port);
			if (this.order.size() > this.capacity) {
				this.ports.remove(this.order.removeFirst());
			}
			return true;
		}

	}

	/** The smallest RESP2 client that can send a command and read one reply. */
	static final class Resp {

		private Resp() {
		}

		static @Nullable Object call(Socket socket, String... arguments) throws IOException {
			OutputStream out = socket.getOutputStream();
			StringBuilder request = new StringBuilder("*").append(arguments.length).append("\r\n");
			for (String argument : arguments) {
				byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
				request.append('$').append(bytes.length).append("\r\n").append(argument).append("\r\n");
			}
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			return read(new BufferedInputStream(socket.getInputStream()));
		}

		private static @Nullable Object read(InputStream in) throws IOException {
			int type = in.read();
			String line = readLine(in);
			switch (type) {
				case '+':
					return line;
				case '-':
					throw new IllegalStateException(line);
				case ':':
					return Long.parseLong(line);
				case '$': {
					int length = Integer.parseInt(line);
					if (length < 0) {
						return null;
					}
					byte[] bytes = in.readNBytes(length + 2);
					return new String(bytes, 0, length, StandardCharsets.UTF_8);
				}
				case '*': {
					int count = Integer.parseInt(line);
					if (count < 0) {
						return null;
					}
					List<@Nullable Object> items = new ArrayList<>(count);
					for (int i = 0; i < count; i++) {
						items.add(read(in));
					}
					return items;
				}
				default:
					throw new IOException("Unexpected RESP type " + type);
			}
		}

		private static String readLine(InputStream in) throws IOException {
			StringBuilder line = new StringBuilder();
			int c;
			while ((c = in.read()) != -1) {
				if (c == '\r') {
					in.read();
					break;
				}
				line.append((char) c);
			}
			return line.toString();
		}

	}

}
