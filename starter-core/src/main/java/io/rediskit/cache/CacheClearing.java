package io.rediskit.cache;

import java.util.ArrayList;
import java.util.List;

import io.rediskit.keys.KeyPatterns;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Deletes the keys of one cache: {@code SCAN} on every master (never {@code KEYS}, which blocks the server), then
 * {@code UNLINK} in batches (one key per call on a cluster, where the keys of a batch would span slots).
 */
final class CacheClearing {

	private static final int BATCH = 500;

	private CacheClearing() {
	}

	/**
	 * Deletes every entry of a cache, leases and load outcomes included.
	 * @param parts the manager's parts
	 * @param name the cache's name
	 */
	static void clear(CacheParts parts, String name) {
		// Names hold no character that encoding changes, so every entry's key starts with this.
		clear(parts.connectionFactory(),
				KeyPatterns.escape(parts.keyNaming().prefix() + CacheParts.AREA + ":{" + name + ":") + "*");
	}

	private static void clear(RedisConnectionFactory connectionFactory, String pattern) {
		ScanOptions options = ScanOptions.scanOptions().match(pattern).count(BATCH).build();
		try (RedisConnection connection = connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						try (Cursor<byte[]> keys = cluster.scan(node, options)) {
							keys.forEachRemaining((key) -> cluster.keyCommands().unlink(key));
						}
					}
				}
				return;
			}
			try (Cursor<byte[]> keys = connection.keyCommands().scan(options)) {
				List<byte[]> batch = new ArrayList<>(BATCH);
				while (keys.hasNext()) {
					batch.add(keys.next());
					if (batch.size() == BATCH) {
						connection.keyCommands().unlink(batch.toArray(byte[][]::new));
						batch.clear();
					}
				}
				if (!batch.isEmpty()) {
					connection.keyCommands().unlink(batch.toArray(byte[][]::new));
				}
			}
		}
	}

}
