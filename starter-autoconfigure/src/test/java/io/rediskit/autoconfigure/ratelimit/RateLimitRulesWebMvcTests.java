package io.rediskit.autoconfigure.ratelimit;

import java.net.http.HttpResponse;
import java.util.List;

import io.rediskit.ratelimit.RateLimited;
import jakarta.servlet.http.HttpSession;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

/** Rate limits for routes in Spring MVC on Tomcat, behind Spring Security's filter chain. */
class RateLimitRulesWebMvcTests extends RateLimitRulesHttpContract {

	@Override
	WebApplicationType webApplicationType() {
		return WebApplicationType.SERVLET;
	}

	@Override
	Class<?> application() {
		return MvcApplication.class;
	}

	@Override
	String sessionCookie(HttpResponse<String> response) {
		String cookie = response.headers().firstValue("Set-Cookie").orElseThrow();
		assertThat(cookie).startsWith("JSESSIONID=");
		return cookie.substring(0, cookie.indexOf(';'));
	}

	@Test
	void runsOnTomcatAfterSpringSecurity() throws Exception {
		try (ConfigurableApplicationContext context = run()) {
			assertThat(context.getBeansOfType(DispatcherServlet.class)).hasSize(1);
		}
	}

	@Test
	void anAnnotatedControllerMethodCarriesTheSuccessHeadersToo() throws Exception {
		HttpResponse<String> first = get("/annotated", "X-Client", "c1");
		assertThat(first.headers().allValues("RateLimit-Policy")).containsExactly("\"annotated\";q=2;w=3600");
		assertRemaining(first, "annotated", 1);
		assertRemaining(get("/annotated", "X-Client", "c1"), "annotated", 0);
		assertThat(get("/annotated", "X-Client", "c1").statusCode()).isEqualTo(429);
	}

	@Test
	void aRequestThroughARuleAndAnAnnotatedMethodCarriesBothLimitersFields() throws Exception {
		HttpResponse<String> both = get("/ip/annotated", "X-Client", "c1");
		assertThat(both.statusCode()).isEqualTo(200);
		assertThat(both.headers().allValues("RateLimit-Policy")).containsExactly("\"two\";q=2;w=3600",
				"\"annotated\";q=2;w=3600");
		List<String> rateLimit = both.headers().allValues("RateLimit");
		assertThat(rateLimit).hasSize(2);
		assertThat(rateLimit.get(0)).startsWith("\"two\";r=1;t=");
		assertThat(rateLimit.get(1)).startsWith("\"annotated\";r=1;t=");
	}

	@Test
	void annotatedMethodsCarryNoSuccessHeadersWhenTheyAreOff() throws Exception {
		try (ConfigurableApplicationContext off = run("redis-kit.rate-limit.web.headers.on-success=false")) {
			HttpResponse<String> allowed = getFrom(base(off), "/annotated", "X-Client", "c1");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit-Policy")).isEmpty();
			assertThat(allowed.headers().firstValue("RateLimit")).isEmpty();
		}
	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Endpoints.class, MvcEndpoints.class, MvcSecurity.class })
	static class MvcApplication {

	}

	@RestController
	static class MvcEndpoints {

		@GetMapping("/start-session")
		String startSession(HttpSession session) {
			return "started";
		}

		@RateLimited(name = "annotated", key = "#client")
		@GetMapping({ "/annotated", "/ip/annotated" })
		String annotated(@RequestHeader("X-Client") String client) {
			return "ok";
		}

	}

	// Spring Security as Spring Boot's security auto-configuration registers it (not on this module's classpath,
	// where it would secure every other test's application): the filter chain at order -100.
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class MvcSecurity {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
				.httpBasic(Customizer.withDefaults())
				.csrf(AbstractHttpConfigurer::disable)
				.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
				.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(User.withUsername("ada").password("{noop}secret").roles("USER").build(),
					User.withUsername("bob").password("{noop}secret").roles("USER").build());
		}

		@Bean
		DelegatingFilterProxyRegistrationBean securityFilterChainRegistration() {
			DelegatingFilterProxyRegistrationBean registration = new DelegatingFilterProxyRegistrationBean(
					"springSecurityFilterChain");
			registration.setOrder(-100);
			return registration;
		}

	}

}
