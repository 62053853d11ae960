package io.rediskit.autoconfigure.lock;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * One Redlock node as configured: {@code redis://[[username]:password@]host[:port][/database]}, or
 * {@code rediss://} for TLS. The port defaults to 6379 and the database to 0. Error messages never repeat the
 * URL, which may hold a password.
 *
 * @param host host name or address
 * @param port port
 * @param username ACL user, or {@code null}
 * @param password password, or {@code null}
 * @param database database index
 * @param ssl whether to connect with TLS
 */
record RedlockNodeUrl(String host, int port, @Nullable String username, @Nullable String password, int database,
		boolean ssl) {

	/**
	 * @param url the configured URL
	 * @return the node
	 * @throws IllegalArgumentException saying what is wrong, without the URL
	 */
	static RedlockNodeUrl parse(String url) {
		URI uri;
		try {
			uri = new URI(url.trim());
		}
		catch (URISyntaxException ex) {
			throw new IllegalArgumentException("is not a URL such as redis://host:6379");
		}
		String scheme = (uri.getScheme() != null) ? uri.getScheme().toLowerCase(Locale.ROOT) : "";
		if (!scheme.equals("redis") && !scheme.equals("rediss")) {
			throw new IllegalArgumentException("must start with redis:// or rediss://");
		}
		if (uri.getHost() == null || uri.getHost().isEmpty()) {
			throw new IllegalArgumentException("must name a host, such as redis://host:6379");
		}
		int port = (uri.getPort() != -1) ? uri.getPort() : 6379;
		if (port < 1 || port > 65535) {
			throw new IllegalArgumentException("must have a port from 1 to 65535");
		}
		String username = null;
		String password = null;
		if (uri.getRawUserInfo() != null) {
			String userInfo = uri.getRawUserInfo();
			int colon = userInfo.indexOf(':');
			if (colon < 0) {
				password = decode(userInfo);
			}
			else {
				username = (colon > 0) ? decode(userInfo.substring(0, colon)) : null;
				password = decode(userInfo.substring(colon + 1));
			}
		}
		int database = 0;
		String path = uri.getPath();
		if (path != null && !path.isEmpty() && !path.equals("/")) {
			try {
				database = Integer.parseInt(path.substring(1));
			}
			catch (NumberFormatException ex) {
				database = -1;
			}
			if (database < 0) {
				throw new IllegalArgumentException("must end with a database number such as /0, if any");
			}
		}
		if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
			throw new IllegalArgumentException("must not have a query or fragment");
		}
		return new RedlockNodeUrl(uri.getHost(), port, username, password, database, scheme.equals("rediss"));
	}

	/** @return {@code host:port}, how logs and metrics may name the node */
	String address() {
		return this.host + ":" + this.port;
	}

	private static String decode(String value) {
		return URLDecoder.decode(value, StandardCharsets.UTF_8);
	}

	@Override
	public String toString() {
		return (this.ssl ? "rediss://" : "redis://") + address() + "/" + this.database;
	}

}
