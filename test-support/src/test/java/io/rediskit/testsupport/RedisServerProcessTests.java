package io.rediskit.testsupport;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisServerProcessTests {

	@Test
	void startsSeveralIndependentServersAndStopsThem() {
		try (RedisServerProcess first = RedisServerProcess.start(); RedisServerProcess second = RedisServerProcess.start()) {
			assertThat(first.port()).isNotEqualTo(second.port()).isNotEqualTo(6379);
			first.command("SET", "k", "one");
			assertThat(first.command("GET", "k")).isEqualTo("one");
			assertThat(second.command("GET", "k")).isNull();
			first.stop();
			assertThat(first.isAlive()).isFalse();
			assertThat(second.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void aServerThatCannotBindItsPortIsNotTakenForTheOneThatAnswersThere() {
		// Two starts given the same port: the second cannot bind, and the first answers PING there meanwhile.
		try (RedisServerProcess first = RedisServerProcess.start()) {
			first.command("SET", "k", "first");
			assertThatThrownBy(() -> RedisServerProcess.startOnPort(first.port()))
				.isInstanceOf(IllegalStateException.class)
				// Refused either way: it exited on its bind error, or the server answering is another process.
				.hasMessageContaining(Integer.toString(first.port()));
			assertThat(first.command("GET", "k")).isEqualTo("first");
		}
	}

	@Test
	void pausedServerAcceptsButNeverAnswersUntilResumed() throws Exception {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			server.pause();
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(server.host(), server.port()), 1000);
				socket.setSoTimeout(300);
				assertThatThrownBy(() -> RedisServerProcess.Resp.call(socket, "PING"))
					.isInstanceOf(SocketTimeoutException.class);
			}
			server.resume();
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void killedServerLosesItsDataAndRestartsOnTheSamePort() {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			int port = server.port();
			server.command("SET", "k", "v");
			server.kill();
			assertThat(server.isAlive()).isFalse();
			assertThatThrownBy(() -> server.command("PING")).isInstanceOf(IllegalStateException.class);
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.command("GET", "k")).isNull();
		}
	}

	@Test
	void errorRepliesAreThrown() {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			assertThatThrownBy(() -> server.command("NOSUCHCOMMAND")).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("ERR");
		}
	}

}
