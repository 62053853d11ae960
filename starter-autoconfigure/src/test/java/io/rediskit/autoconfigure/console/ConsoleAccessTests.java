package io.rediskit.autoconfigure.console;

import java.util.Set;

import io.rediskit.autoconfigure.console.ConsoleAccess.Caller;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who may read and who may act, with and without Spring Security: the rules the browser tests exercise with
 * Spring Security, here for every case, including the application without it.
 */
class ConsoleAccessTests {

	private static final Caller VIEWER = new Caller("vic", true, Set.of("ROLE_REDIS_KIT_VIEWER"));

	private static final Caller OPERATOR = new Caller("ada", true, Set.of("ROLE_REDIS_KIT_OPERATOR"));

	private static final Caller OTHER = new Caller("eve", true, Set.of("ROLE_USER"));

	@Test
	void withSecurityPagesNeedAConsoleRoleAndActionsTheActionRole() {
		ConsoleAccess access = new ConsoleAccess(properties(true, false), true);
		assertThat(access.view(Caller.ANONYMOUS).status()).isEqualTo(401);
		assertThat(access.view(OTHER).status()).isEqualTo(403);
		assertThat(access.view(VIEWER)).isNull();
		assertThat(access.view(OPERATOR)).isNull();
		assertThat(access.act(VIEWER, true).status()).isEqualTo(403);
		assertThat(access.act(VIEWER, true).reason()).isEqualTo("Actions need role REDIS_KIT_OPERATOR");
		assertThat(access.act(Caller.ANONYMOUS, true).status()).isEqualTo(401);
		assertThat(access.act(OPERATOR, true)).isNull();
		assertThat(access.canAct(OPERATOR)).isTrue();
		assertThat(access.canAct(VIEWER)).isFalse();
	}

	@Test
	void actionsNeedTheConsoleHeaderEvenWithTheRole() {
		ConsoleAccess access = new ConsoleAccess(properties(true, false), true);
		assertThat(access.act(OPERATOR, false).reason()).isEqualTo("Actions need the X-Redis-Kit-Console header");
	}

	@Test
	void readOnlyUnlessActionsAreEnabled() {
		ConsoleAccess access = new ConsoleAccess(properties(false, true), true);
		assertThat(access.act(OPERATOR, true).status()).isEqualTo(403);
		assertThat(access.canAct(OPERATOR)).isFalse();
		assertThat(access.actionsNote()).contains("redis-kit.console.actions.enabled=false");
	}

	@Test
	void withoutSecurityAnyoneReadsAndActionsStayOffUnlessAllowedExplicitly() {
		ConsoleAccess off = new ConsoleAccess(properties(true, false), false);
		assertThat(off.view(Caller.ANONYMOUS)).isNull();
		assertThat(off.actionsAllowed()).isFalse();
		assertThat(off.act(Caller.ANONYMOUS, true).reason())
			.contains("redis-kit.console.actions.allow-without-security=true");
		ConsoleAccess allowed = new ConsoleAccess(properties(true, true), false);
		assertThat(allowed.act(Caller.ANONYMOUS, true)).isNull();
		assertThat(allowed.act(Caller.ANONYMOUS, false).status()).isEqualTo(403);
		assertThat(allowed.actionsNote()).contains("WITHOUT Spring Security");
	}

	private static ConsoleProperties properties(boolean actions, boolean withoutSecurity) {
		ConsoleProperties properties = new ConsoleProperties();
		properties.getActions().setEnabled(actions);
		properties.getActions().setAllowWithoutSecurity(withoutSecurity);
		return properties;
	}

}
