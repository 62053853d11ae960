package io.rediskit.autoconfigure.ratelimit;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

/** HTTP 429 from a Spring MVC controller on Tomcat. */
class RateLimitWebMvcTests extends RateLimitHttpContract {

	@Override
	WebApplicationType webApplicationType() {
		return WebApplicationType.SERVLET;
	}

	@Override
	void assertStack(ConfigurableApplicationContext context) {
		assertThat(context.getBeansOfType(DispatcherServlet.class)).hasSize(1);
	}

}
