package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.rediskit.queue.PayloadCodec.Decoded;
import io.rediskit.queue.PayloadCodec.UndecodablePayloadException;
import io.rediskit.queue.QueueTesting.Job;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The payload envelope: headers and time to live beside the JSON, and bare JSON read as before. */
class PayloadCodecTests {

	final PayloadCodec codec = new PayloadCodec(JsonMapper.builder().build());

	@Test
	void aMessageWithoutHeadersOrTimeToLiveIsStoredAsItsBareJson() {
		byte[] json = this.codec.encode(new Job("a", 1));
		assertThat(this.codec.wrap(json, Map.of(), 0)).isSameAs(json);
		Decoded<Job> decoded = this.codec.decodeMessage(json, Job.class, 1000);
		assertThat(decoded).isEqualTo(new Decoded<>(new Job("a", 1), Map.of(), 0));
	}

	@Test
	void headersAndTimeToLiveRoundTripAroundThePayload() {
		byte[] json = this.codec.encode(new Job("a", 1));
		byte[] stored = this.codec.wrap(json, Map.of("trace-id", "é\n\"x"), 5000);
		assertThat(stored[0]).isEqualTo(PayloadCodec.ENVELOPE);
		Decoded<Job> decoded = this.codec.decodeMessage(stored, Job.class, json.length);
		assertThat(decoded).isEqualTo(new Decoded<>(new Job("a", 1), Map.of("trace-id", "é\n\"x"), 5000));
		assertThat(PayloadCodec.payloadOf(stored)).isEqualTo(json);
		assertThat(PayloadCodec.headersOf(stored)).containsExactly(Map.entry("trace-id", "é\n\"x"));
		assertThat(PayloadCodec.headersOf(json)).isEmpty();
	}

	@Test
	void aMalformedEnvelopeIsUndecodableNotAnError() {
		for (String stored : new String[] { "\u001E", "\u001E99\u001E{}", "\u001Ex\u001E{}{}", "\u001E2\u001E[]{}",
				"\u001E11\u001E{\"h\":{\"a\":1}}{}" }) {
			assertThatExceptionOfType(UndecodablePayloadException.class)
				.isThrownBy(() -> this.codec.decodeMessage(stored.getBytes(StandardCharsets.UTF_8), Job.class, 1000))
				.as(stored);
			// The dead-letter listing shows such a message without headers rather than failing.
			assertThat(PayloadCodec.headersOf(stored.getBytes(StandardCharsets.UTF_8))).as(stored).isEmpty();
		}
	}

	@Test
	void headersAreBoundedWithAClearMessage() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QueueEntry.of(new Job("a", 1)).withHeader("big", "x".repeat(QueueEntry.MAX_HEADERS_SIZE)))
			.withMessage("headers must be at most 8192 bytes of names and values in UTF-8, were 8195");
		assertThatIllegalArgumentException().isThrownBy(() -> QueueEntry.of(new Job("a", 1)).withHeader("", "v"))
			.withMessageContaining("header name must be 1 to 256 characters");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QueueEntry.of(new Job("a", 1)).withTimeToLive(java.time.Duration.ZERO))
			.withMessageContaining("timeToLive must be between 1ms");
	}

}
