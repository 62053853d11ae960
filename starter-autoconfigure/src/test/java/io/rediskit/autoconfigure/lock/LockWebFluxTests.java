package io.rediskit.autoconfigure.lock;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

/** HTTP 409 and 503 from a WebFlux annotated controller on Reactor Netty. */
class LockWebFluxTests extends LockHttpContract {

	@Override
	WebApplicationType webApplicationType() {
		return WebApplicationType.REACTIVE;
	}

	@Override
	void assertStack(ConfigurableApplicationContext context) {
		assertThat(context.getBeansOfType(DispatcherHandler.class)).hasSize(1);
		assertThat(context.getBeansOfType(DispatcherServlet.class)).isEmpty();
	}

}
