package io.rediskit.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A TCP proxy on a free loopback port in front of one {@link RedisServerProcess}, for network faults that stopping
 * the server cannot give: the server keeps running and answering other clients (a test checks it directly with
 * {@link RedisServerProcess#command(String...)}), only the links through the proxy misbehave. Clients connect to
 * {@link #port()}, or through {@link #newConnectionFactory(Duration)}.
 * <ul>
 * <li>{@link #pass()}: bytes go through as they come (the state after {@link #start(RedisServerProcess)});</li>
 * <li>{@link #blackhole()}: connections stay open and bytes are taken from the sender but forwarded neither way,
 * so a client sees a half-open link: its writes succeed and nothing ever answers. Bytes are held in the proxy, not
 * dropped, as TCP keeps retransmitting during a partition that heals before it gives up: {@link #pass()} delivers
 * them, late, in order. New connections are accepted and connected to the server, and held the same way;</li>
 * <li>{@link #delay(Duration)}: each chunk read from either side is forwarded that long after it arrived, in
 * order: a link's latency, not a limit on its throughput;</li>
 * <li>{@link #reset()}: every open connection is closed at once with a {@code RST} on both sides
 * ({@code SO_LINGER} 0), as a peer that lost the connection's state answers a half-open link; what was held is
 * lost with it. The mode is left as it was;</li>
 * <li>{@link #refuse()} and {@link #accept()}: while refusing, each new connection is reset as soon as it is
 * accepted, before a byte is forwarded. The TCP handshake completes first (the proxy keeps its port, which
 * another process could take otherwise), so the client sees a reset right after connecting rather than
 * {@code ECONNREFUSED}; open connections are left alone.</li>
 * </ul>
 * It owns its threads (platform daemon threads: one accepting, and per connection one reading and one writing each
 * way), and {@link #close()} resets every connection and stops them. It is test code: one proxy per server under
 * test, a few connections each.
 * <p>
 * {@link #newConnectionFactory(Duration)} needs Spring Data Redis with Lettuce on the class path, which this module
 * declares optional; the rest of the class needs nothing beyond the JDK.
 */
public final class FaultProxy implements AutoCloseable {

	private static final int CHUNK = 16 * 1024;

	private final RedisServerProcess server;

	private final ServerSocket listener;

	private final Thread acceptor;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final AtomicLong bytesFromClients = new AtomicLong();

	private final AtomicLong accepted = new AtomicLong();

	private final Object modeChanged = new Object();

	private volatile boolean blackholed;

	private volatile long delayNanos;

	private volatile boolean refusing;

	private volatile boolean closed;

	private FaultProxy(RedisServerProcess server, ServerSocket listener) {
		this.server = server;
		this.listener = listener;
		this.acceptor = new Thread(this::acceptLoop, "fault-proxy-" + listener.getLocalPort() + "-accept");
		this.acceptor.setDaemon(true);
	}

	/**
	 * Starts a proxy in front of a server, passing bytes through.
	 * @param server the server every connection is forwarded to
	 * @return the running proxy; close it when done
	 */
	public static FaultProxy start(RedisServerProcess server) {
		try {
			ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
			FaultProxy proxy = new FaultProxy(server, listener);
			proxy.acceptor.start();
			return proxy;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot open a loopback port for a proxy to " + server, ex);
		}
	}

	/** @return the loopback port clients connect to */
	public int port() {
		return this.listener.getLocalPort();
	}

	/** @return {@code 127.0.0.1} */
	public String host() {
		return "127.0.0.1";
	}

	/** @return the server behind the proxy */
	public RedisServerProcess server() {
		return this.server;
	}

	/**
	 * A new, started Lettuce connection factory for a standalone server at this proxy's port, as an application
	 * would configure it ({@link RedisTopology#newConnectionFactory()} does the same for a server reached directly).
	 * @param commandTimeout the client's command timeout
	 * @return the factory; destroy it when done
	 */
	public LettuceConnectionFactory newConnectionFactory(Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host(), port()),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** Forwards bytes as they come, with no delay: ends a black hole (delivering what it held) or a delay. */
	public void pass() {
		synchronized (this.modeChanged) {
			this.delayNanos = 0;
			this.blackholed = false;
			this.modeChanged.notifyAll();
		}
	}

	/**
	 * Holds every byte, both ways, on open and new connections, until {@link #pass()} or {@link #delay(Duration)}:
	 * the clients' links stay open and nothing answers.
	 */
	public void blackhole() {
		this.blackholed = true;
	}

	/**
	 * Forwards each chunk a delay after it arrived (ending a black hole).
	 * @param delay how long after it arrived each chunk is forwarded; not negative
	 */
	public void delay(Duration delay) {
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative, was " + delay);
		}
		synchronized (this.modeChanged) {
			this.delayNanos = delay.toNanos();
			this.blackholed = false;
			this.modeChanged.notifyAll();
		}
	}

	/** Closes every open connection at once with a {@code RST} to the client and to the server. */
	public void reset() {
		for (Link link : this.links) {
			link.close(true);
		}
	}

	/** Resets each new connection as soon as it is accepted, until {@link #accept()}. */
	public void refuse() {
		this.refusing = true;
	}

	/** Forwards new connections again after {@link #refuse()}. */
	public void accept() {
		this.refusing = false;
	}

	/** @return the connections open through the proxy now */
	public int openConnections() {
		return this.links.size();
	}

	/** @return how many connections the proxy has accepted so far, refused ones included */
	public long acceptedConnections() {
		return this.accepted.get();
	}

	/**
	 * @return the bytes read from clients so far, held or forwarded: a test can see that a command has left its
	 * client
	 */
	public long bytesFromClients() {
		return this.bytesFromClients.get();
	}

	/** Stops accepting, resets every connection and waits briefly for the proxy's threads to end. */
	@Override
	public void close() {
		this.closed = true;
		try {
			this.listener.close();
		}
		catch (IOException ex) {
			// Closing is all that matters: the acceptor ends either way.
		}
		List<Link> open = List.copyOf(this.links);
		reset();
		join(this.acceptor);
		for (Link link : open) {
			link.join();
		}
	}

	@Override
	public String toString() {
		return "fault proxy on " + host() + ":" + port() + " to " + this.server;
	}

	private void acceptLoop() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.listener.accept();
			}
			catch (IOException ex) {
				// The listener was closed: the proxy is closing.
				return;
			}
			this.accepted.incrementAndGet();
			if (this.refusing || this.closed) {
				abort(client);
				continue;
			}
			Socket upstream = new Socket();
			try {
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				upstream.connect(new InetSocketAddress(this.server.host(), this.server.port()), 2000);
			}
			catch (IOException ex) {
				// The server is down: the client sees what it would see, a connection that fails.
				abort(client);
				abort(upstream);
				continue;
			}
			Link link = new Link(client, upstream);
			this.links.add(link);
			link.start();
			if (this.closed) {
				// close() may have reset the links just before this one was added.
				link.close(true);
			}
		}
	}

	private static void abort(Socket socket) {
		try {
			socket.setSoLinger(true, 0);
		}
		catch (IOException ex) {
			// Not connected, or already closed: a plain close will do.
		}
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join(TimeUnit.SECONDS.toMillis(5));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** One client connection and its connection to the server, with two threads per direction. */
	private final class Link {

		private final Socket client;

		private final Socket upstream;

		private final List<Thread> threads;

		private volatile boolean closed;

		Link(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
			String name = "fault-proxy-" + port() + "-" + client.getPort();
			BlockingQueue<Chunk> toServer = new LinkedBlockingQueue<>();
			BlockingQueue<Chunk> toClient = new LinkedBlockingQueue<>();
			this.threads = List.of(new Thread(() -> read(client, toServer, true), name + "-from-client"),
					new Thread(() -> write(toServer, upstream), name + "-to-server"),
					new Thread(() -> read(upstream, toClient, false), name + "-from-server"),
					new Thread(() -> write(toClient, client), name + "-to-client"));
			this.threads.forEach((thread) -> thread.setDaemon(true));
		}

		void start() {
			this.threads.forEach(Thread::start);
		}

		/** Takes bytes from the sender as they come, whatever the mode, as the network takes them off its hands. */
		private void read(Socket from, BlockingQueue<Chunk> queue, boolean fromClient) {
			try {
				InputStream in = from.getInputStream();
				byte[] buffer = new byte[CHUNK];
				int read;
				while ((read = in.read(buffer)) >= 0) {
					if (fromClient) {
						FaultProxy.this.bytesFromClients.addAndGet(read);
					}
					queue.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime()));
				}
				// One side closed its end: close the link, as a server or client that went away would.
				close(false);
			}
			catch (IOException ex) {
				// Reset or closed, by the proxy or a peer: the other side learns it the same way.
				close(true);
			}
		}

		/** Forwards the chunks in order, each once the black hole is gone and its delay has passed. */
		private void write(BlockingQueue<Chunk> queue, Socket to) {
			try {
				OutputStream out = to.getOutputStream();
				while (!this.closed) {
					Chunk chunk = queue.take();
					synchronized (FaultProxy.this.modeChanged) {
						while (FaultProxy.this.blackholed && !this.closed) {
							FaultProxy.this.modeChanged.wait();
						}
					}
					long wait = chunk.readNanos + FaultProxy.this.delayNanos - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					if (this.closed) {
						return;
					}
					out.write(chunk.bytes);
					out.flush();
				}
			}
			catch (IOException ex) {
				close(true);
			}
			catch (InterruptedException ex) {
				// Interrupted by close(): the link is gone, and so is what it held.
			}
		}

		void close(boolean reset) {
			synchronized (this) {
				if (this.closed) {
					return;
				}
				this.closed = true;
			}
			if (reset) {
				abort(this.client);
				abort(this.upstream);
			}
			else {
				closeQuietly(this.client);
				closeQuietly(this.upstream);
			}
			FaultProxy.this.links.remove(this);
			for (Thread thread : this.threads) {
				if (thread != Thread.currentThread()) {
					thread.interrupt();
				}
			}
		}

		void join() {
			this.threads.forEach(FaultProxy::join);
		}

	}

	/** Bytes read from one side, and when. */
	private record Chunk(byte[] bytes, long readNanos) {
	}

}
