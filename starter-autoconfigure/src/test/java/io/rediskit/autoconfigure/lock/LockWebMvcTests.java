package io.rediskit.autoconfigure.lock;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

/** HTTP 409 and 503 from a Spring MVC controller on Tomcat. */
class LockWebMvcTests extends LockHttpContract {

	@Override
	WebApplicationType webApplicationType() {
		return WebApplicationType.SERVLET;
	}

	@Override
	void assertStack(ConfigurableApplicationContext context) {
		assertThat(context.getBeansOfType(DispatcherServlet.class)).hasSize(1);
	}

}
