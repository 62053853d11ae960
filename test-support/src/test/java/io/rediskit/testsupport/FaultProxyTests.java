package io.rediskit.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The proxy itself, in front of a real server, spoken to over plain sockets. */
class FaultProxyTests {

	private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

	RedisServerProcess server;

	FaultProxy proxy;

	@BeforeEach
	void setUp() {
		this.server = RedisServerProcess.start();
		this.proxy = FaultProxy.start(this.server);
	}

	@AfterEach
	void tearDown() {
		this.proxy.close();
		this.server.close();
	}

	@Test
	void passesCommandsToTheServerBehindIt() throws Exception {
		assertThat(this.proxy.port()).isNotEqualTo(this.server.port());
		try (Client client = connect(2000)) {
			assertThat(client.ping()).isEqualTo("+PONG");
			client.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$7\r\nproxied\r\n".getBytes(StandardCharsets.US_ASCII));
			assertThat(client.readLine()).isEqualTo("+OK");
		}
		assertThat(this.server.command("GET", "k")).isEqualTo("proxied");
	}

	@Test
	void aBlackHoleKeepsTheLinkOpenAnswersNothingAndDeliversWhatItHeldOnPass() throws Exception {
		try (Client client = connect(300)) {
			assertThat(client.ping()).isEqualTo("+PONG");
			this.proxy.blackhole();
			long before = this.proxy.bytesFromClients();
			client.send(PING);
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(client::readLine);
			client.send(PING);
			// Taken from the client as they come, as a network takes packets whatever becomes of them.
			await("both PINGs to reach the proxy", () -> this.proxy.bytesFromClients() == before + 2 * PING.length);
			// The server itself is fine: only the link through the proxy is cut.
			assertThat(this.server.command("PING")).isEqualTo("PONG");
			assertThat(this.proxy.openConnections()).isEqualTo(1);
			this.proxy.pass();
			// Held, not dropped: the PINGs sent into the black hole are answered, late, on the same link.
			assertThat(client.readLine()).isEqualTo("+PONG");
			assertThat(client.readLine()).isEqualTo("+PONG");
			assertThat(client.ping()).isEqualTo("+PONG");
		}
	}

	@Test
	void aResetFailsAnOpenLinkAtOnceAndNewConnectionsWorkAfterIt() throws Exception {
		try (Client client = connect(5000)) {
			assertThat(client.ping()).isEqualTo("+PONG");
			this.proxy.blackhole();
			long before = this.proxy.bytesFromClients();
			client.send(PING);
			await("the PING to reach the proxy", () -> this.proxy.bytesFromClients() > before);
			long started = System.nanoTime();
			this.proxy.reset();
			// A read waiting for the reply fails on the RST, long before its 5 s timeout.
			assertThatExceptionOfType(SocketException.class).isThrownBy(client::readLine)
				.withMessageContaining("reset");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
			assertThat(this.proxy.openConnections()).isZero();
		}
		this.proxy.pass();
		try (Client client = connect(2000)) {
			assertThat(client.ping()).isEqualTo("+PONG");
		}
	}

	@Test
	void aDelayHoldsEachChunkEachWay() throws Exception {
		try (Client client = connect(5000)) {
			assertThat(client.ping()).isEqualTo("+PONG");
			this.proxy.delay(Duration.ofMillis(300));
			long started = System.nanoTime();
			assertThat(client.ping()).isEqualTo("+PONG");
			// One chunk each way, each held 300 ms.
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
			this.proxy.pass();
			started = System.nanoTime();
			assertThat(client.ping()).isEqualTo("+PONG");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(300));
		}
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.proxy.delay(Duration.ofMillis(-1)))
			.withMessage("delay must not be negative, was PT-0.001S");
	}

	@Test
	void refusedConnectionsAreResetOpenOnesAreLeftAloneAndAcceptEndsIt() throws Exception {
		try (Client open = connect(2000)) {
			assertThat(open.ping()).isEqualTo("+PONG");
			this.proxy.refuse();
			// The reset may come while connecting, while sending or while reading: never a reply.
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> {
				try (Client refused = connect(2000)) {
					refused.send(PING);
					if (refused.readLine() == null) {
						throw new IOException("closed without a reply");
					}
				}
			});
			assertThat(open.ping()).isEqualTo("+PONG");
			this.proxy.accept();
			try (Client accepted = connect(2000)) {
				assertThat(accepted.ping()).isEqualTo("+PONG");
			}
		}
	}

	private Client connect(int readTimeoutMillis) throws IOException {
		Socket socket = new Socket();
		socket.connect(new InetSocketAddress(this.proxy.host(), this.proxy.port()), 2000);
		socket.setSoTimeout(readTimeoutMillis);
		return new Client(socket);
	}

	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			Thread.sleep(5);
		}
	}

	/** A socket that sends raw RESP and reads reply lines. */
	private static final class Client implements AutoCloseable {

		private final Socket socket;

		private final BufferedReader in;

		Client(Socket socket) throws IOException {
			this.socket = socket;
			this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
		}

		String ping() throws IOException {
			send(PING);
			return readLine();
		}

		void send(byte[] bytes) throws IOException {
			this.socket.getOutputStream().write(bytes);
			this.socket.getOutputStream().flush();
		}

		String readLine() throws IOException {
			return this.in.readLine();
		}

		@Override
		public void close() throws IOException {
			this.socket.close();
		}

	}

}
